import { useState } from 'react';

type ViewProps = { items: Item[] };

export function View({ items }: ViewProps): JSX.Element {
  const [open, setOpen] = useState<boolean>(false);
  return <List items={items}><Row.Cell onClick={() => setOpen(!open)} /></List>;
}
