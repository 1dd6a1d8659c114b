// The run browser of the inspection index and of the dashboard (filled into both pages): one
// select per field plus a game-name substring, each also settable from the URL query
// (?preset=random&game=dino). `runs` are the scores rows with `page`, the inspection page's URL.
function runBrowser(runs, tbody, count) {
  const fields = ["corpus", "preset", "condition", "genre", "level", "status"];
  const columns = ["corpus", "preset", "condition", "game", "genre", "level", "status"];
  const select = (f) => document.getElementById("f-" + f);
  function render() {
    const want = Object.fromEntries(fields.map((f) => [f, select(f).value]));
    const game = select("game").value.toLowerCase();
    tbody.replaceChildren();
    let shown = 0;
    for (const r of runs) {
      if (fields.some((f) => want[f] !== "" && String(r[f] ?? "") !== want[f])) continue;
      if (game && !r.game.toLowerCase().includes(game)) continue;
      const tr = document.createElement("tr");
      tr.className = "run";
      for (const f of columns) {
        const td = document.createElement("td");
        td.className = f;
        if (f === "game" && r.page) {
          const a = document.createElement("a");
          a.href = r.page; a.textContent = r.game;
          td.append(a);
        } else {
          td.textContent = r[f] ?? "—";
        }
        if (f === "status") td.classList.add(r.status === "ok" ? "status-ok" : "status-other");
        tr.append(td);
      }
      tbody.append(tr);
      shown++;
    }
    count.textContent = `${shown} of ${runs.length} runs`;
  }
  for (const f of fields) {
    const sel = select(f);
    const values = [...new Set(runs.map((r) => String(r[f] ?? "")))].sort();
    sel.append(new Option("(all)", ""));
    for (const v of values) sel.append(new Option(v === "" ? "(none)" : v, v));
    sel.addEventListener("change", render);
  }
  select("game").addEventListener("input", render);
  const params = new URLSearchParams(location.search);
  for (const f of [...fields, "game"]) {
    if (params.has(f)) select(f).value = params.get(f);
  }
  render();
}
