// Injected into every page and frame before the game's own scripts (PlaySuite browser runtime).
// Seeds Math.random so a run is repeatable: the page clock freezes time but not randomness.
// The seed is substituted for __PLAYSUITE_SEED__ by the runtime.
(() => {
  let a = (__PLAYSUITE_SEED__ >>> 0) ^ 0x9e3779b9;
  let b = 0x243f6a88, c = 0xb7e15162, d = 1;
  // sfc32: small, fast, good enough statistically for game logic.
  const next = () => {
    a >>>= 0; b >>>= 0; c >>>= 0; d >>>= 0;
    let t = (a + b) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    d = (d + 1) | 0;
    t = (t + d) | 0;
    c = (c + t) | 0;
    return (t >>> 0) / 4294967296;
  };
  for (let i = 0; i < 16; i++) next();
  Object.defineProperty(Math, "random", { value: next, writable: false, configurable: false });
})();
