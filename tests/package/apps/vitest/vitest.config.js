import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    environment: 'jsdom', // or 'happy-dom', 'node'
    setupFiles: ['weblocks-wasm/test-setup'],
  },
});
