"use strict";
// The Schema section (docs/console.md): what `ck schema show`, `ck schema export` and `ck schema deploy` show and do,
// read from GET /_ck/schema and done through POST /_ck/schema/deploy. DOM through ck.h and text only (CSP, escaping).
(function () {
  const h = ck.h;
  // A render still waiting for its answer is dropped when a newer one started (a picker changed meanwhile).
  let generation = 0;

  function flag(on) {
    return h("span", { class: on ? "flag flag-on" : "flag flag-off", "aria-label": on ? "yes" : "no" }, on ? "✓" : "–");
  }

  function typeBlock(t) {
    const fields = ck.table([
      { title: "Field", get: (f) => f.name },
      { title: "Type", get: (f) => f.type },
      { title: "Queryable", get: (f) => flag(f.queryable) },
      { title: "Sortable", get: (f) => flag(f.sortable) },
      { title: "Searchable", get: (f) => flag(f.searchable) },
    ], t.fields || [], (f) => ({ "data-id": f.name }));
    fields.classList.add("schema-fields", "wide");
    // A narrow window scrolls the table sideways instead of crushing its columns.
    return h("div", { class: "schema-type", "data-id": t.name },
      h("h4", null, t.name),
      h("div", { class: "scroll" }, fields));
  }

  function grantsTable(types) {
    const grants = [];
    for (const t of types) for (const g of t.grants || []) grants.push({ type: t.name, role: g.role, permissions: g.permissions || [] });
    if (grants.length === 0) return h("p", { class: "empty" }, "No grants.");
    const table = ck.table([
      { title: "Record type", get: (g) => g.type },
      { title: "Role", get: (g) => g.role },
      { title: "Permissions", get: (g) => g.permissions.join(", ") },
    ], grants, (g) => ({ "data-id": g.type + "/" + g.role }));
    table.id = "schema-grants";
    table.classList.add("wide");
    return h("div", { class: "scroll" }, table);
  }

  function rolesTable(roles) {
    if (roles.length === 0) return h("p", { class: "empty" }, "No custom roles (CREATE ROLE in the schema makes one).");
    const table = ck.table([{ title: "Role", get: (r) => r }], roles, (r) => ({ "data-id": r }));
    table.id = "schema-roles";
    return table;
  }

  // Deploy: a dry run first shows what would change; only then is the deploy button offered.
  function deployBlock(el) {
    const out = h("div", { id: "schema-changes", "aria-live": "polite" });
    const deploy = h("button", { id: "schema-deploy", type: "button", class: "danger" }, "Deploy to production");
    deploy.hidden = true;
    const diff = h("button", { id: "schema-diff", type: "button" }, "Show what deploy would change");

    diff.addEventListener("click", async () => {
      ck.clearError();
      deploy.hidden = true;
      out.replaceChildren(h("p", { class: "muted" }, "Comparing development with production…"));
      let answer;
      try {
        answer = await ck.control("POST", "/_ck/schema/deploy", { dryRun: true });
      } catch (e) {
        out.replaceChildren();
        ck.showError(e);
        return;
      }
      const lines = answer.lines || [];
      if (lines.length === 0) {
        out.replaceChildren(h("p", { class: "schema-uptodate" }, "Production already has development's schema: nothing to deploy."));
        return;
      }
      out.replaceChildren(
        h("p", null, lines.length === 1 ? "Deploying would make this change to production:" : "Deploying would make these " + lines.length + " changes to production:"),
        h("ul", { class: "schema-diff" }, lines.map((l) => h("li", null, l))));
      deploy.textContent = "Deploy " + lines.length + (lines.length === 1 ? " change" : " changes") + " to production";
      deploy.hidden = false;
      deploy.focus();
    });

    deploy.addEventListener("click", async () => {
      ck.clearError();
      deploy.disabled = true;
      let answer;
      try {
        answer = await ck.control("POST", "/_ck/schema/deploy", { dryRun: false });
      } catch (e) {
        deploy.disabled = false;
        ck.showError(e);
        return;
      }
      deploy.disabled = false;
      deploy.hidden = true;
      const n = (answer.lines || []).length;
      out.replaceChildren(h("p", { class: "schema-deployed" }, "Deployed " + n + (n === 1 ? " change" : " changes") + " to production."));
      ck.toast("Schema deployed to production");
    });

    return h("div", { class: "schema-deploy" },
      h("h3", null, "Deploy to production"),
      h("p", { class: "muted" }, "Copies development's record types, fields, indexes, grants and roles to production (never records), as ck schema deploy does."),
      h("div", { class: "actions" }, diff, deploy),
      out);
  }

  async function render(el) {
    const mine = ++generation;
    const head = h("div", { class: "section-head" },
      h("h2", null, "Schema"),
      h("button", { id: "schema-refresh", type: "button", onclick: () => render(el) }, "Refresh"));
    // data-state tells a script (and the tests) whether what is shown is the latest schema.
    el.dataset.state = "loading";
    el.replaceChildren(head, h("p", { class: "muted" }, "Loading the " + ck.state.environment + " schema…"));
    let s;
    try {
      s = await ck.control("GET", "/_ck/schema");
    } catch (e) {
      if (mine !== generation) return;
      el.replaceChildren(head, h("p", { class: "empty" }, "The schema could not be read."));
      ck.showError(e);
      el.dataset.state = "ready";
      return;
    }
    if (mine !== generation) return;
    const types = s.recordTypes || [];
    const ckdb = h("pre", { id: "schema-ckdb", class: "code", tabindex: "0" });
    ckdb.textContent = s.ckdb || "";
    el.replaceChildren(head,
      h("p", { class: "muted" }, "Environment " + (s.environment || ck.state.environment) + " of " + (s.container || ck.state.container) + "."),
      h("h3", null, "Record types"),
      types.length === 0 ? h("p", { class: "empty" }, "No record types yet.") : h("div", { id: "schema-types" }, types.map(typeBlock)),
      h("h3", null, "Security roles"),
      rolesTable(s.roles || []),
      h("h3", null, "Grants"),
      grantsTable(types),
      h("h3", null, "Schema file (.ckdb)"),
      ckdb,
      deployBlock(el));
    el.dataset.state = "ready";
  }

  ck.section("schema", "Schema", render);
})();
