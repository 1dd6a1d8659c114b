// Injected into every page and frame before the game's own scripts (PlaySuite browser runtime).
// Puts WebAudio's timeline on the page clock. An AudioContext's currentTime runs in wall time and
// its source nodes fire "ended" in wall time, so a game that times its music, or moves on when a
// sound ends (music and cues chained on onended), would change while the model thinks.
// Here the context's currentTime is game time (performance.now(), frozen between slices) while
// the context runs; suspend()/resume()/close() stop and restart that time; every source's
// "ended" is dispatched from a page-clock timer at the end its start()/stop() calls imply, and
// the real (wall-time) "ended" events never reach the game. The real graph still renders, so
// decoding and analysers work; what is heard does not matter in a headless run.
// OfflineAudioContext renders as fast as it can and is left alone.
(() => {
  const RealAC = window.AudioContext || window.webkitAudioContext;
  if (typeof RealAC === "undefined" || typeof AudioScheduledSourceNode === "undefined") return;
  const AC = RealAC.prototype;
  const SN = AudioScheduledSourceNode.prototype;
  const realSuspend = AC.suspend;
  const realResume = AC.resume;
  const realClose = AC.close;
  const realAdd = EventTarget.prototype.addEventListener;
  const realRemove = EventTarget.prototype.removeEventListener;
  const realOnEnded = Object.getOwnPropertyDescriptor(SN, "onended");
  const realState = Object.getOwnPropertyDescriptor(BaseAudioContext.prototype, "state");
  const realCurrentTime = Object.getOwnPropertyDescriptor(BaseAudioContext.prototype, "currentTime");

  // performance.now and setTimeout are looked up at each call: the page clock replaces them
  // after this script may have run.
  const nowS = () => performance.now() / 1000;
  const clocks = new WeakMap(); // context -> its game-time clock and pending sources
  const clockOf = (ctx) => {
    let c = clocks.get(ctx);
    if (!c) {
      // Only a context made through the real constructor saved before this script ran gets
      // here late: it starts from its real time, as if it had run on game time so far.
      const running = realState.get.call(ctx) === "running";
      c = { base: realCurrentTime.get.call(ctx), since: nowS(), running, closed: false };
      c.sources = new Set();
      clocks.set(ctx, c);
    }
    return c;
  };
  const timeOf = (c) => (c.running ? c.base + (nowS() - c.since) : c.base);
  const freeze = (c) => {
    c.base = timeOf(c);
    c.running = false;
    c.sources.forEach((s) => clearTimeout(s.timer));
  };
  const thaw = (c) => {
    if (c.closed || c.running) return;
    c.since = nowS();
    c.running = true;
    c.sources.forEach(arm);
  };

  // -- the context's time and state --------------------------------------------------------------

  // Each context's game time starts at its construction (its real currentTime is 0 then).
  class AudioContext extends RealAC {
    constructor(...args) {
      super(...args);
      clockOf(this);
    }
  }
  window.AudioContext = AudioContext;
  if (window.webkitAudioContext) window.webkitAudioContext = AudioContext;

  Object.defineProperty(AC, "currentTime", {
    configurable: true,
    get() {
      return timeOf(clockOf(this));
    },
  });
  Object.defineProperty(AC, "state", {
    configurable: true,
    get() {
      const c = clockOf(this);
      return c.closed ? "closed" : c.running ? "running" : "suspended";
    },
  });
  AC.suspend = function suspend() {
    freeze(clockOf(this));
    return realSuspend.call(this);
  };
  AC.resume = function resume() {
    thaw(clockOf(this));
    // The real context may stay suspended (an autoplay policy): game time does not care.
    return realResume.call(this).catch(() => undefined);
  };
  AC.close = function close() {
    const c = clockOf(this);
    freeze(c);
    c.closed = true;
    c.sources.clear();
    return realClose.call(this);
  };

  // -- when a source ends ------------------------------------------------------------------------

  const sources = new WeakMap(); // node -> {ctx, startAt, endAt, timer, done}
  const naturalLength = (node, offset, duration) => {
    if (duration !== undefined) return Math.max(0, duration);
    if (!(node instanceof AudioBufferSourceNode)) return Infinity; // oscillators run until stopped
    if (node.loop || !node.buffer) return Infinity; // a buffer set later is played as looping
    const rate = node.playbackRate.value * Math.pow(2, node.detune.value / 1200) || 1;
    return Math.max(0, node.buffer.duration - (offset || 0)) / Math.abs(rate);
  };
  function arm(s) {
    clearTimeout(s.timer);
    if (s.done || !Number.isFinite(s.endAt)) return;
    const c = clockOf(s.ctx);
    if (!c.running) return;
    const left = Math.max(0, s.endAt - timeOf(c));
    s.timer = setTimeout(() => {
      s.done = true;
      c.sources.delete(s);
      s.node.dispatchEvent(new Event("ended"));
    }, left * 1000);
  }

  const started = (node, offset, duration, when) => {
    const c = clockOf(node.context);
    const startAt = Math.max(when, timeOf(c));
    const s = { node, ctx: node.context, startAt, timer: null, done: false };
    s.endAt = startAt + naturalLength(node, offset, duration);
    sources.set(node, s);
    c.sources.add(s);
    arm(s);
  };
  const stopped = (node, when) => {
    const s = sources.get(node);
    if (!s || s.done) return;
    const c = clockOf(s.ctx);
    s.endAt = Math.max(s.startAt, Math.min(s.endAt, Math.max(when, timeOf(c))));
    arm(s);
  };
  // AudioBufferSourceNode has start() of its own (it takes offset and duration): every source
  // prototype that defines start or stop gets its own wrapper around its own real method.
  const kinds = [
    "AudioScheduledSourceNode",
    "AudioBufferSourceNode",
    "OscillatorNode",
    "ConstantSourceNode",
  ];
  for (const kind of kinds) {
    const proto = window[kind] && window[kind].prototype;
    if (!proto) continue;
    const own = (name) => (Object.hasOwn(proto, name) ? proto[name] : null);
    const realStart = own("start");
    const realStop = own("stop");
    if (realStart) {
      proto.start = function start(when = 0, offset, duration) {
        const result = realStart.apply(this, arguments); // throws as the real one does
        started(this, offset, duration, when);
        return result;
      };
    }
    if (realStop) {
      proto.stop = function stop(when = 0) {
        const result = realStop.apply(this, arguments);
        stopped(this, when);
        return result;
      };
    }
  }

  // The real node still ends in wall time: its (trusted) "ended" events are kept from the game.
  const untrusted = new WeakMap(); // the game's listener -> a wrapper that drops trusted events
  const wrap = (listener) => {
    if (!listener || (typeof listener !== "function" && typeof listener !== "object")) {
      return listener;
    }
    let wrapper = untrusted.get(listener);
    if (!wrapper) {
      wrapper = function onEnded(event) {
        if (event.isTrusted) return undefined;
        return typeof listener === "function"
          ? listener.call(this, event)
          : listener.handleEvent(event);
      };
      untrusted.set(listener, wrapper);
    }
    return wrapper;
  };
  SN.addEventListener = function addEventListener(type, listener, options) {
    const fn = type === "ended" ? wrap(listener) : listener;
    return realAdd.call(this, type, fn, options);
  };
  SN.removeEventListener = function removeEventListener(type, listener, options) {
    const fn = type === "ended" ? wrap(listener) : listener;
    return realRemove.call(this, type, fn, options);
  };
  const handlers = new WeakMap(); // node -> the game's onended
  Object.defineProperty(SN, "onended", {
    configurable: true,
    get() {
      return handlers.has(this) ? handlers.get(this) : null;
    },
    set(value) {
      const fn = typeof value === "function" ? value : null;
      handlers.set(this, fn);
      realOnEnded.set.call(this, fn && wrap(fn));
    },
  });
})();
