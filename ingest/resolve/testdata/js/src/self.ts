import { x } from './self';

export function x(): void {}
