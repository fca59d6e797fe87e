import { helper as h, other } from './util.js';
import * as shapes from './shapes';
import main from './defaulty';
import { alias, Shape } from '.';
import React from 'react';
import './styles.css';
const legacy = require('../lib/legacy');
const { run } = require('../lib/legacy');
const lazy = import('./lazy');

export class App extends shapes.Shape {
  start(): void {
    h();
    other();
    this.stop();
    this.area();
    legacy.run();
    run();
    main();
    alias();
    local();
    React.createElement('div');
  }

  stop(): void {}
}

export class Circle extends Shape {
  area(): number {
    return super.area() + this.scale();
  }
}

function local(): void {}

local();
