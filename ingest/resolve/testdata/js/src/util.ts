export function helper(): number {
  return other();
}

export function other(): number {
  return 1;
}
