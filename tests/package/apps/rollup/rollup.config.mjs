import { nodeResolve } from '@rollup/plugin-node-resolve';

export default {
  input: 'src/main.js',
  output: { dir: 'dist', format: 'es' }, // a directory: the observeLocks client is a chunk of its own
  plugins: [nodeResolve({ browser: true })],
};
