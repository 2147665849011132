// The loader app's Rollup build (tests/package/run.mjs loader-rollup): as apps/rollup's, minified
// (terser), so that its bytes compare with the other bundlers' minified builds in bench/.
import { nodeResolve } from '@rollup/plugin-node-resolve';
import terser from '@rollup/plugin-terser';

export default {
  input: 'src/main.js',
  output: { dir: 'dist', format: 'es' }, // a directory: the rest is a chunk of its own
  plugins: [nodeResolve({ browser: true }), terser()],
};
