// Stand-in for a worker-mode game loop: ticks on its own timers, out of the page clock's reach.
let ticks = 0;
setInterval(() => { ticks += 1; postMessage(ticks); }, 16);
