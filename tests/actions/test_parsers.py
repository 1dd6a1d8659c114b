"""The seven Table 8 parsers on realistic answers of their model families.

Screens and images are chosen so that every coordinate convention gives a different pixel: a
parser that read pixels as a grid, forgot the smart resize, or swapped x and y fails here.
"""

from __future__ import annotations

import pytest

from playsuite.actions import (
    Click,
    Hold,
    Invalid,
    Key,
    Move,
    Scroll,
    Wait,
)
from playsuite.actions.canonical import Action
from playsuite.actions.parsers import PARSER_NAMES, get_parser, parse_response
from playsuite.actions.parsers.coords import smart_resize
from playsuite.registry import load_registry

FULL_HD = (1920, 1080)


def one(parser: str, text: str, screen=FULL_HD, image=None, options=None) -> Action:
    actions = parse_response(parser, text, screen, image, options)
    assert len(actions) == 1, actions
    return actions[0]


# --- coordinate conventions ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("size", "bounds", "expected"),
    [
        ((1920, 1080), {}, (1932, 1092)),  # FIELD-NOTES example: sides rounded to 28
        ((1280, 720), {}, (1288, 728)),
        ((3840, 2160), {}, (3836, 2156)),
        ((4000, 3000), {}, (4004, 2996)),  # 11.99 Mpx, under the maximum
        ((5000, 5000), {}, (3556, 3556)),  # 25 Mpx scaled down: floor(5000/1.39509/28)*28
        ((256, 240), {}, (252, 252)),
        ((256, 240), {"min_pixels": 78400}, (308, 280)),  # UI-TARS' minimum scales it up
        ((100, 100), {"min_pixels": 78400}, (280, 280)),  # sqrt(78400/10000) = 2.8
    ],
)
def test_smart_resize_matches_the_qwen_rule(size, bounds, expected) -> None:
    assert smart_resize(*size, **bounds) == expected


def test_every_parser_documents_its_format_convention_and_source() -> None:
    for name in PARSER_NAMES:
        doc = get_parser(name).doc
        assert "Coordinates" in doc or "coordinates" in doc, name
        assert any(src in doc for src in ("/", "README", "model card")), name


def test_presets_name_registered_parsers() -> None:
    for preset in load_registry().presets.values():
        get_parser(preset.parser).options(preset.parser_options)


# --- standard and qwen3 ------------------------------------------------------------------------


def test_standard_scales_from_the_image_sent_to_the_screen() -> None:
    text = "Observation: a menu.\nReasoning: click Play.\nAction: click:640,360"
    assert one("standard", text, FULL_HD, (1280, 720)) == Click(960, 540)
    assert one("standard", text, (1280, 720)) == Click(640, 360)


def test_standard_can_read_smart_resized_pixels() -> None:
    # Qwen2.5-VL sent 1920x1080 sees 1932x1092; its (966, 546) is the screen centre.
    text = "Action: click:966,546"
    assert one("standard", text, options={"coordinates": "smart_resize"}) == Click(960, 540)
    assert one("standard", text) == Click(966, 546)


def test_qwen3_reads_the_0_1000_grid() -> None:
    text = "<think>\nThe start button is in the middle.\n</think>\n\nAction: click:500,250"
    assert one("qwen3", text, FULL_HD, (1280, 720)) == Click(960, 270)
    assert one("qwen3", text, (800, 600)) == Click(400, 150)
    assert one("qwen3", "Action: move:+100,-50:0.5") == Move(dx=192, dy=-54, seconds=0.5)
    assert isinstance(one("qwen3", "Action: click:1280,720"), Invalid)  # pixels, not grid
    pixels = one("qwen3", "Action: click:1280,720", options={"coordinates": "pixels"})
    assert pixels == Click(1280, 720)


# --- UI-TARS -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "Thought: The START button is in the centre of the title screen.\n"
            "Action: click(start_box='(966,546)')",
            Click(960, 540),
        ),
        ("Action: click(start_box='<|box_start|>(966,546)<|box_end|>')", Click(960, 540)),
        ("Action: click(point='<point>966 546</point>')", Click(960, 540)),
        ("Action: click(start_box='(956,536,976,556)')", Click(960, 540)),  # box centre
        ("Action: left_double(start_box='(0,0)')", Click(0, 0, "left", 2)),
        ("Action: right_single(start_box='(1932,1092)')", Click(1919, 1079, "right")),
        ("Action: hover(start_box='(483,273)')", Move(x=480, y=270)),
        ("Action: hotkey(key='ctrl c')", Key(("ctrl", "c"))),
        ("Action: hotkey(key='arrowleft')", Key(("left",))),
        ("Action: press(key='space')", Hold(("space",), 2.0)),
        ("Action: keydown(key='d')", Hold(("d",), 2.0)),
        ("Action: keyup(key='d')", Wait()),
        ("Action: scroll(start_box='(966,546)', direction='down')", Scroll("down", 5, 960, 540)),
        ("Action: scroll(direction='up')", Scroll("up", 5)),
        ("Action: wait()", Wait()),
        ("Action: finished(content='The level is complete.')", Wait()),
    ],
)
def test_uitars_calls(text: str, expected: Action) -> None:
    assert one("uitars", text) == expected


def test_uitars_converts_from_the_resized_image_not_the_screen() -> None:
    # Image 1280x720 -> 1288x728 seen by the model, shown on a 2560x1440 screen.
    text = "Action: click(start_box='(644,364)')"
    assert one("uitars", text, (2560, 1440), (1280, 720)) == Click(1280, 720)
    # A small retro frame is scaled *up* by UI-TARS' min_pixels: 256x240 -> 308x280.
    assert one("uitars", "Action: click(start_box='(154,140)')", (256, 240)) == Click(128, 120)
    grid = one("uitars", text, FULL_HD, options={"coordinates": "grid"})
    assert grid == Click(1236, 393)  # UI-TARS-1.0 convention: 644/1000*1920, 364/1000*1080


def test_uitars_type_and_the_explicit_non_mappings() -> None:
    typed = parse_response("uitars", "Action: type(content='Go!\\n')", FULL_HD)
    assert typed == [Key(("shift", "g")), Key(("o",)), Key(("shift", "1")), Key(("enter",))]
    drag = one("uitars", "Action: drag(start_box='(10,10)', end_box='(50,50)')")
    assert isinstance(drag, Invalid) and "drag" in drag.reason
    side = one("uitars", "Action: scroll(start_box='(1,1)', direction='left')")
    assert isinstance(side, Invalid) and "horizontal" in side.reason
    phone = one("uitars", "Action: press_home()")
    assert isinstance(phone, Invalid) and "phone-only" in phone.reason
    unknown = one("uitars", "Action: teleport(start_box='(1,1)')")
    assert isinstance(unknown, Invalid) and "teleport" in unknown.reason


def test_uitars_several_calls_and_trailing_prose() -> None:
    text = (
        "Thought: Jump twice.\nAction: hotkey(key='space')\n\nhotkey(key='space')\n\n"
        "That should clear the gap."
    )
    assert parse_response("uitars", text, FULL_HD) == [Key(("space",)), Key(("space",))]


# --- OpenCUA -----------------------------------------------------------------------------------

OPENCUA = """## Thought:
The game shows a "Play" button in the middle of the window. I should click it.

## Action:
Click the "Play" button.

## Code:
```python
pyautogui.click(x=966, y=546)
```"""


def test_opencua_reads_smart_resized_pixels_from_the_code_block() -> None:
    assert one("opencua", OPENCUA) == Click(960, 540)
    # 256x240 with the Qwen default min_pixels is *not* scaled up: 252x252.
    assert one("opencua", "pyautogui.click(x=126, y=126)", (256, 240)) == Click(128, 120)


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        ("pyautogui.click(966, 546)", [Click(960, 540)]),
        ("pyautogui.click(x=966, y=546, button='right')", [Click(960, 540, "right")]),
        ("pyautogui.click(x=966, y=546, clicks=2)", [Click(960, 540, "left", 2)]),
        ("pyautogui.rightClick(x=966, y=546)", [Click(960, 540, "right")]),
        ("pyautogui.doubleClick(x=966, y=546)", [Click(960, 540, "left", 2)]),
        ("computer.triple_click(x=966, y=546)", [Click(960, 540, "left", 3)]),
        ("pyautogui.moveTo(x=483, y=273)", [Move(x=480, y=270)]),
        ("pyautogui.scroll(-3)", [Scroll("down", 3)]),
        ("pyautogui.scroll(2, x=966, y=546)", [Scroll("up", 2, 960, 540)]),
        ("pyautogui.press('enter')", [Key(("enter",))]),
        ("pyautogui.press(keys=['left', 'left'])", [Key(("left",)), Key(("left",))]),
        ("pyautogui.press('space', presses=3)", [Key(("space",))] * 3),
        ("pyautogui.hotkey('ctrl', 's')", [Key(("ctrl", "s"))]),
        ("pyautogui.hotkey(keys=['ctrl', 'shift', 'esc'])", [Key(("ctrl", "shift", "escape"))]),
        ("pyautogui.keyDown('w')", [Hold(("w",), 2.0)]),
        ("pyautogui.keyUp('w')", [Wait()]),
        ("pyautogui.write(message='hi')", [Key(("h",)), Key(("i",))]),
        ("computer.wait()", [Wait()]),
        ('computer.terminate(status="success")', [Wait()]),
        ("pyautogui.click(x=0.5, y=0.25)", [Click(960, 270)]),  # relative, as the source allows
        ("pyautogui.hotkey('ctrl', 'c')  # copy (for later)", [Key(("ctrl", "c"))]),
    ],
)
def test_opencua_pyautogui_calls(code: str, expected: list[Action]) -> None:
    text = f"## Action:\nDo it.\n\n## Code:\n```python\n{code}\n```"
    assert parse_response("opencua", text, FULL_HD) == expected


def test_opencua_code_lines_in_sequence_and_non_mappings() -> None:
    code = "pyautogui.moveTo(483, 273)\npyautogui.click(483, 273)\ntime.sleep(1)"
    assert parse_response("opencua", code, FULL_HD) == [Move(x=480, y=270), Click(480, 270)]
    drag = one("opencua", "pyautogui.dragTo(100, 100, duration=0.5)")
    assert isinstance(drag, Invalid) and "drag" in drag.reason
    assert isinstance(one("opencua", "pyautogui.hscroll(5)"), Invalid)
    assert isinstance(one("opencua", "pyautogui.click()"), Invalid)
    inline = one("opencua", "I will run `pyautogui.press('space')` now.")
    assert inline == Key(("space",))


# --- OS-Atlas ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "thoughts:\nopen the cart to review the products\nactions:\n"
            "CLICK <point>[[500,250]]</point>",
            [Click(960, 270)],
        ),
        ("actions:\nCLICK <point>[[500, 250]]</point>", [Click(960, 270)]),
        ("actions:\nDOUBLECLICK <point>[[100,900]]</point>", [Click(192, 972, "left", 2)]),
        ("actions:\nRIGHTCLICK <point>[[1000,1000]]</point>", [Click(1919, 1079, "right")]),
        ("actions:\nMOVETO <point>[[250,500]]</point>", [Move(x=480, y=540)]),
        ("actions:\nCLICK <point>[[400,200,600,300]]</point>", [Click(960, 270)]),
        ("actions:\nTYPE [Hi]", [Key(("shift", "h")), Key(("i",))]),
        ("actions:\nSCROLL [DOWN]", [Scroll("down", 5)]),
        ("actions:\nPRESS_SPACE", [Key(("space",))]),
        ("actions:\nPRESS_PGDN", [Key(("pagedown",))]),
        ("actions:\nPRESS_ESC", [Key(("escape",))]),
        ("actions:\nHOTKEY [CTRL_A]", [Key(("ctrl", "a"))]),
        ("actions:\nENTER", [Key(("enter",))]),
        ("actions:\nCOMPLETE", [Wait()]),
        (
            "actions:\nCLICK <point>[[500,250]]</point>\nPRESS_ENTER",
            [Click(960, 270), Key(("enter",))],
        ),
    ],
)
def test_osatlas_action_lines(text: str, expected: list[Action]) -> None:
    assert parse_response("osatlas", text, FULL_HD) == expected


def test_osatlas_non_mappings() -> None:
    for text, word in [
        ("actions:\nSCROLL [LEFT]", "horizontal"),
        ("actions:\nOPEN_APP [Chrome]", "phone-only"),
        ("actions:\nPRESS_BACK", "phone-only"),
        ("actions:\nCLICK <point>[[1001,5]]</point>", "outside"),
        ("actions:\nFLY [UP]", "unknown OS-Atlas action"),
        ("thoughts:\nno idea", "no 'actions:'"),
    ]:
        action = one("osatlas", text)
        assert isinstance(action, Invalid) and word in action.reason, (text, action)


# --- ShowUI ------------------------------------------------------------------------------------


def test_showui_dicts_with_fractions() -> None:
    text = (
        "{'action': 'CLICK', 'value': None, 'position': [0.49, 0.42]},\n"
        "{'action': 'INPUT', 'value': 'ok', 'position': [0.49, 0.42]},\n"
        "{'action': 'ENTER', 'value': None, 'position': None}"
    )
    assert parse_response("showui", text, FULL_HD) == [
        Click(940, 453),  # 0.49*1920 = 940.8, 0.42*1080 = 453.6 (floored)
        Key(("o",)),
        Key(("k",)),
        Key(("enter",)),
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("{'action': 'HOVER', 'value': None, 'position': [0.25, 0.5]}", Move(x=480, y=540)),
        ("{'action': 'TAP', 'value': None, 'position': [1.0, 1.0]}", Click(1919, 1079)),
        ("{'action': 'SELECT', 'value': None, 'position': [0.5, 0.5]}", Click(960, 540)),
        ("{'action': 'SCROLL', 'value': 'down', 'position': None}", Scroll("down", 5)),
        ("{'action': 'scroll', 'value': 'up', 'position': None}", Scroll("up", 5)),
        ("{'action': 'ESC', 'value': None, 'position': None}", Key(("escape",))),
        ("{'action': 'PRESS', 'value': 'space', 'position': None}", Key(("space",))),
        ("{'action': 'PRESS', 'value': None, 'position': [0.5, 0.5]}", Click(960, 540)),
        ("{'action': 'ANSWER', 'value': 'done', 'position': None}", Wait()),
        ('{"action": "CLICK", "value": null, "position": [0.5, 0.5]}', Click(960, 540)),
    ],
)
def test_showui_actions(text: str, expected: Action) -> None:
    assert one("showui", text) == expected


def test_showui_non_mappings() -> None:
    for text, word in [
        ("{'action': 'CLICK', 'value': None, 'position': [490, 420]}", "outside"),
        ("{'action': 'SWIPE', 'value': None, 'position': [[0.1,0.1],[0.9,0.9]]}", "drag"),
        ("{'action': 'SCROLL', 'value': 'left', 'position': None}", "horizontal"),
        ("{'action': 'FLY'}", "unknown ShowUI action"),
        ("{'value': 1}", "'action' key"),
        ("Click the play button.", "no ShowUI action dict"),
    ]:
        action = one("showui", text)
        assert isinstance(action, Invalid) and word in action.reason, (text, action)


# --- computer_use (EvoCUA, GUI-Owl) ------------------------------------------------------------


def call(arguments: str) -> str:
    return (
        "Action: Click the Start button.\n<tool_call>\n"
        f'{{"name": "computer_use", "arguments": {arguments}}}\n</tool_call>'
    )


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ('{"action": "left_click", "coordinate": [499, 499]}', Click(959, 539)),
        ('{"action": "left_click", "coordinate": [999, 999]}', Click(1919, 1079)),
        ('{"action": "right_click", "coordinate": [0, 0]}', Click(0, 0, "right")),
        ('{"action": "double_click", "coordinate": [999, 0]}', Click(1919, 0, "left", 2)),
        ('{"action": "triple_click", "coordinate": [0, 999]}', Click(0, 1079, "left", 3)),
        ('{"action": "middle_click", "coordinate": [0, 0]}', Click(0, 0, "middle")),
        ('{"action": "mouse_move", "coordinate": [333, 666]}', Move(x=640, y=720)),
        ('{"action": "key", "keys": ["ctrl", "c"]}', Key(("ctrl", "c"))),
        ('{"action": "key", "keys": ["Return"]}', Key(("enter",))),
        ('{"action": "key_down", "keys": ["shift"]}', Hold(("shift",), 2.0)),
        ('{"action": "key_up", "keys": ["shift"]}', Wait()),
        ('{"action": "scroll", "pixels": -5}', Scroll("down", 5)),
        ('{"action": "scroll", "pixels": 3, "coordinate": [499, 499]}', Scroll("up", 3, 959, 539)),
        ('{"action": "wait", "time": 2}', Wait()),
        ('{"action": "terminate", "status": "success"}', Wait()),
        ('"{\\"action\\": \\"key\\", \\"keys\\": [\\"space\\"]}"', Key(("space",))),
    ],
)
def test_computer_use_tool_calls(arguments: str, expected: Action) -> None:
    assert one("computer_use", call(arguments)) == expected


def test_computer_use_grid_is_999_as_in_evocua_and_gui_owl() -> None:
    # x / 999 * width: a grid of 1000 would give 959 and 1918 here.
    assert one(
        "computer_use", call('{"action": "left_click", "coordinate": [500, 999]}'), (1998, 999)
    ) == Click(1000, 998)
    over = one("computer_use", call('{"action": "left_click", "coordinate": [1200, 10]}'))
    assert isinstance(over, Invalid) and "outside" in over.reason


def test_computer_use_thinking_several_calls_and_non_mappings() -> None:
    text = (
        "<think>I should press space twice.</think>\n"
        '<tool_call>{"name": "computer_use", "arguments": {"action": "key", "keys": ["space"]}}'
        "</tool_call>\n"
        '<tool_call>{"name": "computer_use", "arguments": {"action": "type", "text": "a"}}'
    )  # the second call is cut off before </tool_call>
    assert parse_response("computer_use", text, FULL_HD) == [Key(("space",)), Key(("a",))]
    for arguments, word in [
        ('{"action": "left_click_drag", "coordinate": [1, 1]}', "drag"),
        ('{"action": "hscroll", "pixels": 3}', "horizontal"),
        ('{"action": "left_click"}', "without a coordinate"),
        ('{"action": "fly"}', "unknown computer_use action"),
    ]:
        action = one("computer_use", call(arguments))
        assert isinstance(action, Invalid) and word in action.reason, (arguments, action)
    other_tool = one("computer_use", '<tool_call>{"name": "browser", "arguments": {}}</tool_call>')
    assert isinstance(other_tool, Invalid) and "unknown tool" in other_tool.reason
    bare = one("computer_use", '```json\n{"action": "key", "keys": ["up"]}\n```')
    assert bare == Key(("up",))


# --- shared decisions ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("parser", "text"),
    [
        ("standard", "Observation: x\nReasoning: nothing to do"),
        ("qwen3", "<think>never finished"),
        ("uitars", "Thought: I am not sure."),
        ("opencua", "## Thought:\nThe screen is black."),
        ("osatlas", "thoughts:\nwait for the level"),
        ("showui", "The element is the play button."),
        ("computer_use", "Action: Wait for the game to load."),
    ],
)
def test_an_answer_without_an_action_is_one_invalid_action(parser: str, text: str) -> None:
    action = one(parser, text)
    assert isinstance(action, Invalid) and action.reason and action.raw


def test_typing_text_without_canonical_keys_is_recorded_not_dropped() -> None:
    actions = parse_response("uitars", "Action: type(content='né')", FULL_HD)
    assert actions[0] == Key(("n",))
    assert isinstance(actions[1], Invalid) and "'é'" in actions[1].reason
    long = parse_response("uitars", "Action: type(content='" + "a" * 70 + "')", FULL_HD)
    assert len(long) == 65 and isinstance(long[-1], Invalid) and "6 characters" in long[-1].reason
    short = parse_response(
        "uitars", "Action: type(content='abc')", FULL_HD, options={"max_type_chars": 2}
    )
    assert short[:2] == [Key(("a",)), Key(("b",))] and isinstance(short[2], Invalid)


def test_options_come_from_presets_and_are_checked() -> None:
    held = one("uitars", "Action: press(key='a')", options={"keydown_seconds": 0.5})
    assert held == Hold(("a",), 0.5)
    assert one("osatlas", "actions:\nSCROLL [UP]", options={"scroll_notches": 2}) == Scroll("up", 2)
    with pytest.raises(ValueError, match="no option"):
        parse_response("standard", "space", FULL_HD, options={"gird": 1000})
    with pytest.raises(ValueError, match="coordinates"):
        parse_response("standard", "space", FULL_HD, options={"coordinates": "inches"})
    with pytest.raises(ValueError, match="unknown parser"):
        parse_response("gpt", "space", FULL_HD)
    with pytest.raises(ValueError, match="screen"):
        parse_response("standard", "space", (0, 10))
