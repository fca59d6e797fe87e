import { App } from './app';

export function View() {
  return <App />;
}
