// Injected into every page and frame before the game's own scripts (PlaySuite browser runtime).
// Puts <audio>/<video> playback on the page clock. The page clock freezes timers and animation
// frames, but a media element plays in wall time and fires "ended" when its wall-time duration
// is over: a game that starts its level when the intro tune ends would move on while the model
// thinks (pac-man-game did). Here no element really plays. play() starts a virtual playhead that
// reads performance.now() (game time), and every playback event is dispatched from a page-clock
// timer, so it can only happen while the runtime runs game time. Sound is lost; headless runs
// have no listener anyway. WebAudio has its own script, browser_webaudio_clock.js.
(() => {
  const P = HTMLMediaElement.prototype;
  const real = (name) => Object.getOwnPropertyDescriptor(P, name);
  const realCurrentTime = real("currentTime");
  const realDuration = real("duration");
  const realPlaybackRate = real("playbackRate");
  const realLoop = real("loop");
  const realSrc = real("src");
  const realLoad = P.load;
  const realPause = P.pause;
  const TIMEUPDATE_MS = 250; // the HTML spec allows 15-250 ms between timeupdate events

  // performance.now and setTimeout are looked up at each call: the page clock replaces them
  // after this script may have run.
  const nowS = () => performance.now() / 1000;
  const states = new WeakMap();
  const stateOf = (el) => {
    let s = states.get(el);
    if (!s) {
      s = { playing: false, ended: false, pos: 0, since: 0, endTimer: null, tick: null, gen: 0 };
      states.set(el, s);
    }
    return s;
  };
  const later = (fn) => setTimeout(fn, 0);
  const fire = (el, ...types) => types.forEach((type) => el.dispatchEvent(new Event(type)));
  const duration = (el) => realDuration.get.call(el);
  const rate = (el) => realPlaybackRate.get.call(el) || 1;
  const position = (el, s) => {
    if (!s.playing) return s.pos;
    const pos = s.pos + (nowS() - s.since) * rate(el);
    const d = duration(el);
    return Number.isFinite(d) ? Math.min(pos, d) : pos;
  };
  const stopTimers = (s) => {
    clearTimeout(s.endTimer);
    clearInterval(s.tick);
    s.endTimer = s.tick = null;
    s.gen += 1; // a metadata wait from an earlier play() must not schedule anything
  };
  const rewind = (s) => {
    // What the load algorithm does (load(), a new src): stopped at 0, not ended.
    stopTimers(s);
    Object.assign(s, { playing: false, ended: false, pos: 0 });
  };
  const rebase = (el, s) => {
    s.pos = position(el, s);
    s.since = nowS();
  };

  const finish = (el, s) => {
    if (realLoop.get.call(el)) {
      s.pos = 0;
      s.since = nowS();
      fire(el, "seeking", "timeupdate", "seeked");
      schedule(el, s);
      return;
    }
    s.pos = duration(el);
    s.playing = false;
    s.ended = true;
    stopTimers(s);
    fire(el, "timeupdate", "pause", "ended");
  };

  function schedule(el, s) {
    clearTimeout(s.endTimer);
    const d = duration(el);
    if (Number.isNaN(d)) {
      // Metadata not loaded yet: the wait is in wall time, but what it schedules runs only on
      // the page clock, so nothing happens while game time is frozen.
      const gen = s.gen;
      el.addEventListener(
        "loadedmetadata",
        () => later(() => s.playing && s.gen === gen && schedule(el, s)),
        { once: true },
      );
      return;
    }
    if (!Number.isFinite(d)) return; // a stream: it never ends
    const left = Math.max(0, (d - position(el, s)) / rate(el));
    s.endTimer = setTimeout(() => finish(el, s), left * 1000);
  }

  P.play = function play() {
    const s = stateOf(this);
    if (s.playing) return Promise.resolve();
    if (s.ended) s.pos = 0; // play() after the end starts over, as a real element does
    s.playing = true;
    s.ended = false;
    s.since = nowS();
    schedule(this, s);
    s.tick = setInterval(() => fire(this, "timeupdate"), TIMEUPDATE_MS);
    later(() => fire(this, "play", "playing"));
    return Promise.resolve();
  };

  P.pause = function pause() {
    const s = stateOf(this);
    if (!s.playing) return;
    rebase(this, s);
    s.playing = false;
    stopTimers(s);
    later(() => fire(this, "timeupdate", "pause"));
  };

  P.load = function load() {
    rewind(stateOf(this));
    return realLoad.call(this);
  };

  Object.defineProperty(P, "currentTime", {
    configurable: true,
    enumerable: realCurrentTime.enumerable,
    get() {
      return position(this, stateOf(this));
    },
    set(value) {
      const s = stateOf(this);
      const d = duration(this);
      s.pos = Math.max(0, Number.isFinite(d) ? Math.min(Number(value), d) : Number(value));
      s.since = nowS();
      s.ended = false;
      if (s.playing) schedule(this, s);
      later(() => fire(this, "seeking", "timeupdate", "seeked"));
    },
  });

  Object.defineProperty(P, "playbackRate", {
    configurable: true,
    enumerable: realPlaybackRate.enumerable,
    get() {
      return realPlaybackRate.get.call(this);
    },
    set(value) {
      const s = stateOf(this);
      rebase(this, s);
      realPlaybackRate.set.call(this, value);
      if (s.playing) schedule(this, s);
    },
  });

  Object.defineProperty(P, "src", {
    configurable: true,
    enumerable: realSrc.enumerable,
    get() {
      return realSrc.get.call(this);
    },
    set(value) {
      rewind(stateOf(this));
      realSrc.set.call(this, value);
    },
  });

  for (const name of ["paused", "ended"]) {
    Object.defineProperty(P, name, {
      configurable: true,
      enumerable: real(name).enumerable,
      get() {
        const s = stateOf(this);
        return name === "paused" ? !s.playing : s.ended;
      },
    });
  }

  // An element with the autoplay attribute starts itself in wall time: its own (trusted)
  // playback events are stopped before any listener sees them and it plays virtually instead.
  const OWN_EVENTS = ["play", "playing", "pause", "ended", "timeupdate", "seeking", "seeked"];
  for (const type of OWN_EVENTS) {
    window.addEventListener(
      type,
      (event) => {
        const el = event.target;
        if (!event.isTrusted || !(el instanceof HTMLMediaElement)) return;
        event.stopImmediatePropagation();
        if (type === "play") {
          realPause.call(el);
          el.play();
        }
      },
      true,
    );
  }
})();
