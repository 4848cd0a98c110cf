#include "analyses/flamegraph/script.h"

#include "absl/strings/str_cat.h"
#include "analyses/flamegraph/text.h"

namespace tk::analyses::flamegraph {
namespace {

constexpr const char* kScript = R"JS(
var tkfg = null;

function init(evt) {
	var cfg = TKFG_CONFIG;
	var st = {
		cfg: cfg,
		width: parseFloat(document.documentElement.getAttribute("width")),
		details: document.getElementById("details"),
		unzoomBtn: document.getElementById("unzoom"),
		searchBtn: document.getElementById("search"),
		icBtn: document.getElementById("ignorecase"),
		matched: document.getElementById("matched"),
		frames: [],
		term: null,  // the search shown (it matched something)
		lastTerm: null,
		icase: false
	};
	// The frame's name is its title without the " (N countname, P%...)" suffix.
	var suffix = new RegExp(" \\([0-9,]+ " + cfg.countname.replace(/[.*+?^${}()|[\]\\]/g, "\\$&") +
		", [^]*\\)$");
	var groups = document.getElementById("frames").children;
	for (var i = 0; i < groups.length; i++) {
		var g = groups[i];
		var rect = g.querySelector("rect"), text = g.querySelector("text"), title = g.querySelector("title");
		if (!rect || !text || !title) continue;
		var info = title.textContent;
		var f = {
			g: g, rect: rect, text: text, info: info,
			name: info.replace(suffix, ""),
			xs: rect.getAttribute("x"), ys: rect.getAttribute("y"),
			ws: rect.getAttribute("width"), txs: text.getAttribute("x"),
			label: text.textContent, fill: rect.getAttribute("fill")
		};
		f.x = parseFloat(f.xs);
		f.y = parseFloat(f.ys);
		f.w = parseFloat(f.ws);
		g.tkfgFrame = f;
		st.frames.push(f);
	}
	tkfg = st;
	window.addEventListener("click", tkfgClick, false);
	window.addEventListener("mouseover", function (e) {
		var f = tkfgFrameOf(e.target);
		if (f) st.details.textContent = cfg.nametype + " " + f.info;
	}, false);
	window.addEventListener("mouseout", function (e) {
		if (tkfgFrameOf(e.target)) st.details.textContent = " ";
	}, false);
	window.addEventListener("keydown", function (e) {
		if (e.keyCode === 114 || (e.ctrlKey && e.keyCode === 70)) {
			e.preventDefault();
			tkfgSearchPrompt();
		} else if (e.ctrlKey && e.keyCode === 73) {
			e.preventDefault();
			tkfgToggleCase();
		}
	}, false);
	var params = tkfgParams();
	if (params.x !== undefined && params.y !== undefined) {
		for (var j = 0; j < st.frames.length; j++) {
			if (st.frames[j].xs === params.x && st.frames[j].ys === params.y) {
				tkfgZoom(st.frames[j]);
				break;
			}
		}
	}
	if (params.s) tkfgSearch(params.s);
}

function tkfgFrameOf(node) {
	for (; node && node.parentNode; node = node.parentNode) {
		if (node.parentNode.id === "frames") return node.tkfgFrame || null;
	}
	return null;
}

// The query string as an object, and back (other keys are kept).
function tkfgParams() {
	var out = {};
	var parts = window.location.search.substring(1).split("&");
	for (var i = 0; i < parts.length; i++) {
		var eq = parts[i].indexOf("=");
		if (eq <= 0 || eq === parts[i].length - 1) continue;
		out[parts[i].substring(0, eq)] = decodeURIComponent(parts[i].substring(eq + 1));
	}
	return out;
}
function tkfgSetParams(change) {
	var params = tkfgParams();
	for (var key in change) {
		if (change[key] === null) delete params[key]; else params[key] = change[key];
	}
	var q = [];
	for (var k in params) q.push(k + "=" + encodeURIComponent(params[k]));
	var url = q.length ? "?" + q.join("&") : window.location.href.split("?")[0];
	try { history.replaceState(null, "", url); } catch (e) { /* file: URLs in some browsers */ }
}

function tkfgNum(v) { return String(Math.round(v * 100) / 100); }

// The label for a frame `w` pixels wide: as many characters as fit at fontsize * fontwidth
// per character, the last two replaced by ".." when cut; nothing below three.
function tkfgFit(f, w) {
	var chars = Math.floor(w / (tkfg.cfg.fontsize * tkfg.cfg.fontwidth));
	if (chars < 3) return "";
	var name = f.name.replace(/_\[[kwij]\]$/, "");
	var cps = Array.from(name);
	if (chars >= cps.length) return name;
	return cps.slice(0, chars - 2).join("") + "..";
}

function tkfgPlace(f, x, w) {
	f.rect.setAttribute("x", tkfgNum(x));
	f.rect.setAttribute("width", tkfgNum(w));
	f.text.setAttribute("x", tkfgNum(x + 3));
	f.text.textContent = tkfgFit(f, w);
}

function tkfgRestore(f) {
	f.g.classList.remove("hide");
	f.g.classList.remove("parent");
	f.rect.setAttribute("x", f.xs);
	f.rect.setAttribute("width", f.ws);
	f.text.setAttribute("x", f.txs);
	f.text.textContent = f.label;
}

// Zooms `z` to full width: frames below it (above, in an icicle graph) that contain it are
// its ancestors and span the width dimmed; frames within its range above it are scaled; the
// rest are hidden. Computed from the unzoomed geometry, so zooming twice is zooming once.
function tkfgZoom(z) {
	var st = tkfg, cfg = st.cfg, full = st.width - 2 * cfg.xpad, fudge = 0.0001;
	var xmin = z.x, xmax = z.x + z.w, ratio = full / z.w, parents = 0;
	for (var i = 0; i < st.frames.length; i++) {
		var f = st.frames[i];
		tkfgRestore(f);
		if (f === z) {
			tkfgPlace(f, cfg.xpad, full);
			continue;
		}
		var below = cfg.inverted ? f.y < z.y : f.y > z.y;
		if (below) {
			if (f.x <= xmin && f.x + f.w + fudge >= xmax) {
				f.g.classList.add("parent");
				tkfgPlace(f, cfg.xpad, full);
				parents++;
			} else {
				f.g.classList.add("hide");
			}
		} else if (f.x < xmin || f.x + fudge >= xmax) {
			f.g.classList.add("hide");
		} else {
			tkfgPlace(f, cfg.xpad + (f.x - xmin) * ratio, f.w * ratio);
		}
	}
	if (parents === 0) {  // the root: nothing to zoom
		tkfgUnzoom();
		return false;
	}
	st.unzoomBtn.classList.remove("hide");
	if (st.term !== null) tkfgSearch(st.term);
	return true;
}

function tkfgUnzoom() {
	for (var i = 0; i < tkfg.frames.length; i++) tkfgRestore(tkfg.frames[i]);
	tkfg.unzoomBtn.classList.add("hide");
	tkfgSetParams({x: null, y: null});
	if (tkfg.term !== null) tkfgSearch(tkfg.term);
}

function tkfgClick(e) {
	var f = tkfgFrameOf(e.target);
	if (f) {
		// A --nameattr link opens; Ctrl-click zooms it instead.
		if (f.g.nodeName === "a") {
			if (!e.ctrlKey) return;
			e.preventDefault();
		}
		if (tkfgZoom(f)) tkfgSetParams({x: f.xs, y: f.ys});
		return;
	}
	var id = e.target && e.target.id;
	if (id === "unzoom") tkfgUnzoom();
	else if (id === "search") tkfgSearchPrompt();
	else if (id === "ignorecase") tkfgToggleCase();
}

function tkfgClearHighlight() {
	for (var i = 0; i < tkfg.frames.length; i++) {
		var f = tkfg.frames[i];
		f.rect.setAttribute("fill", f.fill);
	}
}

// Highlights the frames whose title matches `term` and shows the share of the (visible)
// width they cover, overlapping frames (a match above a match) counted once.
function tkfgSearch(term) {
	var st = tkfg, re;
	try { re = new RegExp(term, st.icase ? "i" : ""); } catch (err) { return; }
	tkfgClearHighlight();
	st.term = null;
	st.lastTerm = term;
	var spans = [], maxw = 0;
	for (var i = 0; i < st.frames.length; i++) {
		var f = st.frames[i];
		var visible = !f.g.classList.contains("hide");
		var x = parseFloat(f.rect.getAttribute("x")), w = parseFloat(f.rect.getAttribute("width"));
		if (visible && w > maxw) maxw = w;
		if (!re.test(f.info)) continue;
		f.rect.setAttribute("fill", st.cfg.searchcolor);
		if (visible) spans.push([x, w]);
	}
	if (!spans.length) return;
	st.term = term;
	tkfgSetParams({s: term});
	st.searchBtn.classList.add("show");
	st.searchBtn.textContent = "Reset Search";
	spans.sort(function (a, b) { return a[0] - b[0] || b[1] - a[1]; });
	var covered = 0, end = -Infinity, fudge = 0.0001;
	for (var k = 0; k < spans.length; k++) {
		var s0 = spans[k][0], s1 = spans[k][0] + spans[k][1];
		if (s0 >= end - fudge) {
			covered += spans[k][1];
			end = s1;
		} else if (s1 > end) {
			covered += s1 - end;
			end = s1;
		}
	}
	var pct = 100 * covered / maxw;
	st.matched.classList.remove("hide");
	st.matched.textContent = "Matched: " + (pct === 100 ? "100" : pct.toFixed(1)) + "%";
}

function tkfgResetSearch() {
	var st = tkfg;
	tkfgClearHighlight();
	st.term = st.lastTerm = null;
	st.searchBtn.classList.remove("show");
	st.searchBtn.textContent = "Search";
	st.matched.classList.add("hide");
	st.matched.textContent = " ";
	tkfgSetParams({s: null});
}

function tkfgSearchPrompt() {
	if (tkfg.term !== null) {
		tkfgResetSearch();
		return;
	}
	var term = prompt("Search frames (a regular expression, e.g. ^ext4_)" +
		(tkfg.icase ? ", ignoring case" : "") + "\nCtrl-I toggles case sensitivity", "");
	if (term) tkfgSearch(term);
}

function tkfgToggleCase() {
	var st = tkfg;
	st.icase = !st.icase;
	if (st.icase) st.icBtn.classList.add("show"); else st.icBtn.classList.remove("show");
	if (st.lastTerm) tkfgSearch(st.lastTerm);
}
)JS";

}  // namespace

std::string Script(const FlameOptions& o) {
  std::string nametype, countname;
  AppendJsonString(&nametype, o.nametype, true);
  AppendJsonString(&countname, o.countname, true);
  std::string cfg = absl::StrCat(
      "{nametype: ", nametype, ", countname: ", countname, ", fontsize: ", o.fontsize, ", fontwidth: ", o.fontwidth, ", xpad: 10, inverted: ",
      o.inverted ? "true" : "false", ", searchcolor: \"rgb(230,0,230)\"}");
  std::string s = "\t\"use strict\";";
  s.append(kScript);
  s.replace(s.find("TKFG_CONFIG"), 11, cfg);
  return s;
}

}  // namespace tk::analyses::flamegraph
