import { run } from './legacy.js';

export function go() {
  run();
}
