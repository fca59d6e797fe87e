export default function main(): void {}
