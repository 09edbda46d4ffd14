"use strict";
// The console's core (docs/console.md): state and pickers, the two ways to call ck serve (Web Services and the
// /_ck/ control plane), error display, sections, and DOM helpers. Everything is built with DOM calls and text
// nodes, never from markup, so a value from the store can only ever show as text.
(function () {
  const state = {
    container: "", environment: "development", database: "private", zone: "_defaultZone",
    user: "", token: "", auth: "none",
  };
  const listeners = [];
  const sections = new Map();
  let current = null;
  let health = null;

  /** CloudKit's error shape (or a transport failure) as a thrown value. */
  class CKError extends Error {
    constructor(status, body, fallback) {
      const b = body && typeof body === "object" ? body : {};
      super(b.reason || fallback || ("HTTP " + status));
      this.status = status;
      this.serverErrorCode = b.serverErrorCode || (status ? "HTTP_" + status : "NETWORK_ERROR");
      this.reason = b.reason || fallback || "";
      this.uuid = b.uuid || "";
      this.body = body;
    }
  }

  /** Builds an element: strings and numbers become text nodes; attributes are set one by one, never parsed. */
  function h(tag, attrs, ...children) {
    const el = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k.startsWith("on") && typeof v === "function") el.addEventListener(k.slice(2).toLowerCase(), v);
      else if (k === "class") el.className = v;
      else if (k === "value") el.value = v;
      else if (k === "checked" || k === "disabled" || k === "hidden" || k === "selected") el[k] = !!v;
      else el.setAttribute(k, v === true ? "" : String(v));
    }
    append(el, children);
    return el;
  }

  function append(el, children) {
    for (const c of children) {
      if (c === null || c === undefined || c === false) continue;
      if (Array.isArray(c)) append(el, c);
      else if (c instanceof Node) el.appendChild(c);
      else el.appendChild(document.createTextNode(String(c)));
    }
  }

  /** Empties an element. */
  function clear(el) {
    while (el.firstChild) el.removeChild(el.firstChild);
    return el;
  }

  /** One HTTP exchange; resolves the parsed JSON answer, rejects with a CKError. */
  async function exchange(method, url, body, headers) {
    const init = { method, headers: Object.assign({}, headers || {}) };
    if (body !== undefined && body !== null) {
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    let response;
    try {
      response = await fetch(url, init);
    } catch (e) {
      throw new CKError(0, null, "ck serve did not answer (" + (e && e.message ? e.message : "network error") + "): is it still running?");
    }
    const next = response.headers.get("X-Apple-CloudKit-Web-Auth-Token");
    if (next && state.auth === "token") {
      state.token = next;
      sessionStorage.setItem("ck.token", next);
    }
    const text = await response.text();
    let parsed = null;
    if (text) {
      try { parsed = JSON.parse(text); } catch (e) {
        throw new CKError(response.status, null, "the answer to " + method + " " + url + " is not JSON (HTTP " + response.status + ")");
      }
    }
    if (!response.ok) throw new CKError(response.status, parsed);
    return parsed;
  }

  /** Who the next Web Services request acts as. */
  function identity() {
    if (state.auth === "token") return state.token ? { "X-Apple-CloudKit-Web-Auth-Token": state.token } : {};
    return state.user ? { "X-CK-User": state.user } : { "X-CK-Anonymous": "1" };
  }

  /** POST /database/1/{container}/{environment}/{database}/{op} as the picked user. */
  function ws(op, body) {
    const path = ["/database/1", encodeURIComponent(state.container), state.environment, state.database, op].join("/");
    return exchange("POST", path, body || {}, identity());
  }

  /** A /_ck/ control-plane route, for the picked container and environment unless the path names its own. */
  function control(method, path, body) {
    const url = new URL(path, location.origin);
    if (!url.searchParams.has("container") && state.container) url.searchParams.set("container", state.container);
    if (!url.searchParams.has("environment")) url.searchParams.set("environment", state.environment);
    return exchange(method, url.pathname + url.search, body, {});
  }

  function showError(err) {
    const box = document.getElementById("error");
    clear(box);
    if (err instanceof CKError) {
      box.append(h("strong", { class: "code" }, err.serverErrorCode), " ", h("span", { class: "reason" }, err.reason));
      if (err.uuid) box.append(" ", h("span", { class: "uuid", title: "the request's uuid" }, err.uuid));
    } else {
      box.append(h("strong", { class: "code" }, "ERROR"), " ", h("span", { class: "reason" }, String(err && err.message ? err.message : err)));
    }
    box.append(h("button", { type: "button", class: "dismiss", "aria-label": "Dismiss", onclick: clearError }, "×"));
    box.hidden = false;
  }

  function clearError() {
    const box = document.getElementById("error");
    clear(box);
    box.hidden = true;
  }

  let toastTimer = null;
  function toast(text) {
    const box = document.getElementById("toast");
    box.textContent = text;
    box.classList.add("shown");
    clearTimeout(toastTimer);
    toastTimer = setTimeout(() => box.classList.remove("shown"), 3000);
  }

  /** Registers a section: a nav button and a <section>; render(el) runs when it is shown and after a picker change. */
  function section(id, title, render) {
    const el = h("section", { id: "section-" + id, hidden: true, "aria-labelledby": "nav-" + id });
    document.getElementById("main").appendChild(el);
    const button = h("button", { type: "button", id: "nav-" + id, "data-section": id, onclick: () => show(id) }, title);
    document.getElementById("sections").appendChild(button);
    sections.set(id, { el, button, render, title });
    if (!current && started) show(location.hash.slice(1) || id);
  }

  /** Shows a section by id and renders it. */
  function show(id) {
    const s = sections.get(id);
    if (!s) return;
    for (const [key, other] of sections) {
      other.el.hidden = key !== id;
      other.button.setAttribute("aria-current", key === id ? "page" : "false");
    }
    current = id;
    if (location.hash !== "#" + id) history.replaceState(null, "", "#" + id);
    run(s);
  }

  async function run(s) {
    try {
      await s.render(s.el);
    } catch (e) {
      showError(e);
    }
  }

  function onChange(fn) { listeners.push(fn); }

  function setState(partial) {
    Object.assign(state, partial);
    sessionStorage.setItem("ck.state", JSON.stringify({
      container: state.container, environment: state.environment, database: state.database, zone: state.zone, user: state.user,
    }));
    syncPickers();
    for (const fn of listeners) {
      try { fn(); } catch (e) { showError(e); }
    }
    if (current) run(sections.get(current));
  }

  /** A local time for milliseconds since 1970. */
  function time(ms) {
    const d = new Date(ms);
    if (isNaN(d.getTime())) return String(ms);
    const p = (n, w) => String(n).padStart(w || 2, "0");
    return d.getFullYear() + "-" + p(d.getMonth() + 1) + "-" + p(d.getDate()) + " " + p(d.getHours()) + ":" +
      p(d.getMinutes()) + ":" + p(d.getSeconds());
  }

  /** A Node showing a Web Services field value `{value, type}` by its type. */
  function cell(field) {
    if (!field || field.value === null || field.value === undefined) return h("span", { class: "none" }, "—");
    const type = field.type || "";
    const value = field.value;
    if (type.endsWith("_LIST") || Array.isArray(value)) {
      const base = type.endsWith("_LIST") ? type.slice(0, -5) : "";
      const items = Array.isArray(value) ? value : [value];
      const out = h("span", { class: "list" });
      items.forEach((v, i) => { if (i) out.append(", "); out.append(cell({ value: v, type: base })); });
      return out;
    }
    switch (type) {
      case "TIMESTAMP": return h("time", { title: String(value) }, time(value));
      case "REFERENCE": {
        const name = value.recordName || "";
        return h("a", {
          class: "ref", href: "#records", "data-record": name, title: "open " + name,
          onclick: (e) => { e.preventDefault(); openRecord(value); },
        }, name);
      }
      case "ASSETID": {
        const url = (value.downloadURL || "").replace("${f}", "asset");
        const label = value.size !== undefined ? value.size + " bytes" : "asset";
        return url ? h("a", { class: "asset", href: url, download: "asset" }, label) : h("span", { class: "asset" }, label);
      }
      case "LOCATION": return h("span", { class: "location" }, value.latitude + ", " + value.longitude);
      case "BYTES": return h("span", { class: "bytes" }, (typeof value === "string" ? Math.floor(value.length * 3 / 4) : 0) + " bytes");
      default:
        return h("span", {}, typeof value === "object" ? JSON.stringify(value) : String(value));
    }
  }

  /** A <table> of rows: columns are `{title, get(row) → Node|string}`; rowAttrs(row) gives each <tr>'s attributes. */
  function table(columns, rows, rowAttrs) {
    return h("table", {},
      h("thead", {}, h("tr", {}, columns.map((c) => h("th", { scope: "col" }, c.title)))),
      h("tbody", {}, rows.map((r) => h("tr", rowAttrs ? rowAttrs(r) : {}, columns.map((c) => h("td", {}, c.get(r)))))));
  }

  /** Opens a record in the Records section (records.js sets the handler). */
  function openRecord(reference) {
    show("records");
    if (typeof ck.recordOpener === "function") ck.recordOpener(reference);
  }

  // --- pickers ---
  function picker(id) { return document.getElementById(id); }

  function options(select, values, labels) {
    clear(select);
    values.forEach((v, i) => select.appendChild(h("option", { value: v }, labels ? labels[i] : v)));
  }

  function syncPickers() {
    for (const [id, key] of [["pick-container", "container"], ["pick-environment", "environment"], ["pick-database", "database"], ["pick-zone", "zone"], ["pick-user", "user"]]) {
      const el = picker(id);
      if (![...el.options].some((o) => o.value === state[key])) el.appendChild(h("option", { value: state[key] }, state[key] || "anonymous"));
      el.value = state[key];
    }
  }

  async function loadUsers() {
    const select = picker("pick-user");
    let names = [];
    try {
      const answer = await control("GET", "/_ck/users");
      names = ((answer && answer.users) || []).map((u) => u.name).filter(Boolean);
    } catch (e) {
      // An older server without /_ck/users: the --no-auth user is still a choice.
    }
    if (health && health.noAuthUser && !names.includes(health.noAuthUser)) names.unshift(health.noAuthUser);
    options(select, names.concat([""]), names.concat(["anonymous"]));
    if (!names.includes(state.user) && state.user !== "") state.user = names[0] || "";
    syncPickers();
  }

  async function loadZones() {
    const select = picker("pick-zone");
    let zones = ["_defaultZone"];
    if (state.database !== "public" && (state.user || state.auth === "token")) {
      try {
        const answer = await ws("zones/list", {});
        zones = ((answer && answer.zones) || []).map((z) => z.zoneID && z.zoneID.zoneName).filter(Boolean);
        if (!zones.length) zones = ["_defaultZone"];
      } catch (e) {
        zones = ["_defaultZone"];
      }
    }
    options(select, zones);
    if (!zones.includes(state.zone)) state.zone = zones[0];
    syncPickers();
  }

  function applyTheme(theme) {
    document.documentElement.setAttribute("data-theme", theme);
    localStorage.setItem("ck.theme", theme);
  }

  let started = false;
  async function start() {
    const saved = JSON.parse(sessionStorage.getItem("ck.state") || "{}");
    const preferred = localStorage.getItem("ck.theme") ||
      (window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light");
    applyTheme(preferred);
    picker("theme").addEventListener("click", () => {
      applyTheme(document.documentElement.getAttribute("data-theme") === "dark" ? "light" : "dark");
    });
    try {
      health = await exchange("GET", "/_ck/health");
    } catch (e) {
      showError(e);
      health = { containers: [], currentContainer: "" };
    }
    state.auth = health.auth === "token" ? "token" : "none";
    const containers = health.containers || [];
    options(picker("pick-container"), containers);
    state.container = containers.includes(saved.container) ? saved.container : (health.currentContainer || containers[0] || "");
    for (const key of ["environment", "database", "zone"]) if (saved[key]) state[key] = saved[key];
    state.user = saved.user !== undefined ? saved.user : (health.noAuthUser || "");
    if (state.auth === "token") {
      document.getElementById("token-box").hidden = false;
      state.token = sessionStorage.getItem("ck.token") || "";
      picker("token").value = state.token;
      picker("pick-user").disabled = true;
      picker("token-use").addEventListener("click", async () => {
        state.token = picker("token").value.trim();
        sessionStorage.setItem("ck.token", state.token);
        await whoAmI();
        await loadZones();
        setState({});
      });
      await whoAmI();
    } else {
      await loadUsers();
    }
    await loadZones();
    syncPickers();
    for (const [id, key] of [["pick-container", "container"], ["pick-environment", "environment"], ["pick-database", "database"], ["pick-zone", "zone"], ["pick-user", "user"]]) {
      picker(id).addEventListener("change", async (e) => {
        clearError();
        state[key] = e.target.value;
        if (key === "container") await loadUsers();
        if (key !== "zone") await loadZones();
        setState({});
      });
    }
    window.addEventListener("hashchange", () => show(location.hash.slice(1)));
    started = true;
    const first = location.hash.slice(1);
    show(sections.has(first) ? first : (sections.keys().next().value || ""));
    // Tests (and anything scripting the page) wait for this: pickers filled, first section shown.
    document.documentElement.setAttribute("data-ready", "1");
  }

  /** In token mode, the user the token acts as, shown in the user picker. */
  async function whoAmI() {
    if (!state.token) {
      options(picker("pick-user"), [""], ["no token"]);
      state.user = "";
      return;
    }
    try {
      const me = await ws("users/current", {});
      // users/current names the ck user as firstName (docs/serve.md).
      const name = (me && (me.firstName || me.userRecordName)) || "token user";
      options(picker("pick-user"), [name]);
      state.user = name;
    } catch (e) {
      showError(e);
    }
  }

  window.ck = {
    state, onChange, setState, ws, control, h, clear, showError, clearError, toast, section, show, cell, table, time,
    CKError, openRecord, recordOpener: null,
  };
  document.addEventListener("DOMContentLoaded", () => { start(); });
})();
