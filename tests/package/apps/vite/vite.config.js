import { defineConfig } from 'vite';

export default defineConfig({
  // The dev server answers only hosts it knows; weblocks.test is the test's insecure origin.
  server: { allowedHosts: ['weblocks.test'] },
});
