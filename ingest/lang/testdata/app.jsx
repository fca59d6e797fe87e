'use strict';
const express = require('express');
const { join, resolve: res } = require("path");
const lazy = import('./lazy.js');
const registry = [];
var hits = 0, misses = 0;

// Handles requests.
function handler(req, res) {
  hits += 1;
  registry.push(req.url);
  if (!req.ok) {
    logger.warn(`bad request ${req.url}`);
    throw new HttpError(400, "bad request");
  }
  for (const hits of req.list) {
    hits.count = 0;
  }
  return res.send(<Page title="x"><ui.Button /></Page>);
}

class Server extends EventEmitter {
  port = 80;
  onError = (err) => { this.failed = true; };

  /**
   * Start listening.
   * @param {number} port
   * @return {Promise<void>}
   */
  async start(port) {
    this.port = port;
    delete this.pending;
    await this.app.listen(port);
  }
}

exports.create = function (opts) {
  return new Server(opts);
};

module.exports.stop = async () => {
  throw 'stopped';
};
