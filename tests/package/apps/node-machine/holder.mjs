// The forked child: holds "app" (navigator.locks from the inherited preload) until it is killed.
navigator.locks.request('app', () => {
  process.send('held');
  return new Promise(() => {});
});
setInterval(() => {}, 1 << 30); // alive until killed: a held lock alone does not keep a process alive
