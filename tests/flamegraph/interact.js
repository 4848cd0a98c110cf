// Drives tk's flame graph script in headless Chromium over the DevTools protocol, as a user
// would: Ctrl-F (answering the prompt with TERM), Ctrl-I (case-insensitive from then on), hover,
// a click on a frame, Reset Zoom, Ctrl-F again (resets the search). Prints one JSON object of observations for browser_test.cc.
//   node --experimental-websocket interact.js FILE.svg TERM FRAME_TITLE_PREFIX
'use strict';
const { spawn } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');

const [svg, term, framePrefix] = process.argv.slice(2);
const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'tk_fg_cdp'));
const chrome = spawn('chromium', [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
  '--user-data-dir=' + profile, '--remote-debugging-port=0', '--window-size=1200,800',
  'file://' + svg], { stdio: ['ignore', 'ignore', 'pipe'] });

function finish(result, code) {
  process.stdout.write(JSON.stringify(result) + '\n');
  chrome.on('exit', () => {
    try { fs.rmSync(profile, { recursive: true, force: true }); } catch (e) { /* best effort */ }
    process.exit(code);
  });
  chrome.kill('SIGKILL');
}
const log = (s) => { if (process.env.TK_CDP_DEBUG) process.stderr.write(s + '\n'); };
setTimeout(() => finish({ error: 'timeout' }, 1), 90000);

function port() {
  return new Promise((resolve) => {
    let err = '';
    chrome.stderr.on('data', (d) => {
      err += d;
      const m = err.match(/DevTools listening on ws:\/\/[^:]+:(\d+)\//);
      if (m) resolve(m[1]);
    });
  });
}

async function main() {
  const p = await port();
  log('port ' + p);
  let page = null;
  for (let i = 0; i < 50 && !page; i++) {
    const list = await (await fetch(`http://127.0.0.1:${p}/json/list`)).json();
    page = list.find((t) => t.type === 'page' && t.url.startsWith('file://'));
    if (!page) await new Promise((r) => setTimeout(r, 100));
  }
  const ws = new WebSocket(page.webSocketDebuggerUrl);
  await new Promise((r) => ws.addEventListener('open', r));
  let next = 1;
  const pending = new Map();
  const waiters = [];
  ws.addEventListener('message', (ev) => {
    const msg = JSON.parse(ev.data);
    if (msg.id && pending.has(msg.id)) {
      pending.get(msg.id)(msg.result || msg);
      pending.delete(msg.id);
    } else if (msg.method) {
      for (const w of waiters.splice(0)) w(msg);
    }
  });
  const send = (method, params = {}) => new Promise((resolve) => {
    const id = next++;
    pending.set(id, resolve);
    ws.send(JSON.stringify({ id, method, params }));
  });
  const event = (name) => new Promise((resolve) => {
    const w = (msg) => (msg.method === name ? resolve(msg.params) : waiters.push(w));
    waiters.push(w);
  });
  const js = async (expr) => (await send('Runtime.evaluate', { expression: expr, returnByValue: true })).result.value;
  const key = (code, modifiers) => Promise.all([
    send('Input.dispatchKeyEvent', { type: 'rawKeyDown', windowsVirtualKeyCode: code, modifiers }),
    send('Input.dispatchKeyEvent', { type: 'keyUp', windowsVirtualKeyCode: code, modifiers })]);
  const state = () => js(`({search: location.search,
      matched: document.getElementById("matched").textContent,
      matchedHidden: document.getElementById("matched").classList.contains("hide"),
      highlighted: document.querySelectorAll('#frames rect[fill="rgb(230,0,230)"]').length,
      searchText: document.getElementById("search").textContent,
      icShown: document.getElementById("ignorecase").classList.contains("show"),
      hidden: document.querySelectorAll("#frames > g.hide").length,
      parents: document.querySelectorAll("#frames > g.parent").length,
      unzoomHidden: document.getElementById("unzoom").classList.contains("hide"),
      details: document.getElementById("details").textContent})`);

  log('connected');
  await send('Page.enable');
  await send('Runtime.enable');
  for (let i = 0; i < 100 && !(await js('typeof tkfg !== "undefined" && tkfg !== null')); i++) {
    await new Promise((r) => setTimeout(r, 50));
  }
  log('loaded');
  const out = {};
  // Ctrl-F opens the prompt; answer it with TERM.
  const dialog = event('Page.javascriptDialogOpening');
  const typed = key(70, 2);
  out.prompt = (await dialog).type;
  await send('Page.handleJavaScriptDialog', { accept: true, promptText: term });
  await typed;
  out.afterSearch = await state();
  log('searched');
  await key(73, 2);  // Ctrl-I
  log('ctrl-i');
  out.afterCase = await state();
  log('case');
  // Hover and click the widest frame whose title starts with FRAME_TITLE_PREFIX.
  const box = await js(`(function () {
      var best = null;
      document.querySelectorAll("#frames > g").forEach(function (g) {
        var t = g.querySelector("title").textContent, r = g.querySelector("rect");
        if (t.indexOf(${JSON.stringify(framePrefix)}) === 0 &&
            (!best || parseFloat(r.getAttribute("width")) > parseFloat(best.getAttribute("width")))) best = r;
      });
      if (!best) return null;
      var b = best.getBoundingClientRect();
      return {x: b.left + b.width / 2, y: b.top + b.height / 2, rx: best.getAttribute("x"), ry: best.getAttribute("y")};
    })()`);
  out.box = box;
  log('box ' + JSON.stringify(box));
  await send('Input.dispatchMouseEvent', { type: 'mouseMoved', x: box.x, y: box.y });
  out.afterHover = await state();
  await send('Input.dispatchMouseEvent', { type: 'mousePressed', x: box.x, y: box.y, button: 'left', clickCount: 1 });
  await send('Input.dispatchMouseEvent', { type: 'mouseReleased', x: box.x, y: box.y, button: 'left', clickCount: 1 });
  out.afterClick = await state();
  log('clicked');
  out.clickedWidth = await js(`document.querySelector('#frames rect[y="${box.ry}"][width="1180"]') !== null`);
  log('width ' + out.clickedWidth);
  const unzoom = await js(`(function () { var b = document.getElementById("unzoom").getBoundingClientRect();
      return {x: b.left + b.width / 2, y: b.top + b.height / 2}; })()`);
  await send('Input.dispatchMouseEvent', { type: 'mousePressed', x: unzoom.x, y: unzoom.y, button: 'left', clickCount: 1 });
  await send('Input.dispatchMouseEvent', { type: 'mouseReleased', x: unzoom.x, y: unzoom.y, button: 'left', clickCount: 1 });
  log('unzoomed');
  out.afterUnzoom = await state();
  await key(70, 2);  // Ctrl-F again: resets the search
  out.afterReset = await state();
  finish(out, 0);
}
main().catch((e) => finish({ error: String(e) }, 1));
