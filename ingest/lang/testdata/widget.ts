/**
 * @file Widget rendering.
 */
import React, { useState as useS, type Props } from 'react';
import * as path from "node:path";
import type { Theme } from './theme';
import './styles.css';
import fs = require('fs');
export { helper, other as alias } from './helpers';
export * from './all';
export type { Shape } from './shapes';

let renders = 0;
const cache = new Map<string, Widget>();
export const DEFAULT_SIZE: Size = { w: 1, h: 1 };

/**
 * Render a widget.
 *
 * @param {Widget} w - The widget to render.
 * @param {number} [scale=1] Scale factor
 *   applied twice.
 * @returns {string} The HTML.
 * @throws {RangeError} When scale is negative.
 */
export function render<T>(w: Widget, scale: number, extra: T): Html<Theme> {
  // TODO: support dark mode
  if (scale < 0) {
    throw new RangeError(`negative scale ${scale}`);
  }
  renders++;
  cache.set(w.id, w);
  return w.draw(scale).html;
}

/** A widget. */
@Component({ selector: 'w' })
export class Widget extends Base implements Drawable, ns.Sized {
  size: Size;
  #secret = 1;

  constructor(private readonly store: Store) {
    super(store);
    this.size = DEFAULT_SIZE;
  }

  /** Draw it. */
  draw(scale: number): Drawing {
    this.drawn = true; // so that render() can skip us
    const renders = 5;
    renders++;
    console.error("draw failed: %s", this.id);
    return helper(this).finish();
  }

  onClick = (e: Event): void => {
    throw Error("not implemented");
  };
}

export interface Drawable extends Base<Shape> {
  draw(scale: number): Drawing;
  name: Label;
}

export type Html<T> = string | Fragment<T>;
export enum Mode { Fast, Slow }

export const make = async (n: number) => {
  const inner = () => n * 2;
  return inner();
};
