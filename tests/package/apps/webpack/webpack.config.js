import path from 'node:path';

export default {
  mode: 'production',
  entry: './src/main.js',
  output: { path: path.resolve('dist'), filename: 'main.js' },
};
