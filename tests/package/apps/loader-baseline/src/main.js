// The loader app's baseline (bench/loader-bytes.mjs): the same app without the polyfill, splitting
// one chunk off with a dynamic import as the polyfill's entry does. What its entry downloads is the
// bundler's own code for loading a chunk (Vite's preload helpers, webpack's runtime), which any app
// that splits code pays with or without us: the loader app's entry minus this is ours.
window.appReady = Promise.resolve({ later: () => import('./later.js') });
