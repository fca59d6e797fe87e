export { helper, other as alias } from './util';
export * from './shapes';
