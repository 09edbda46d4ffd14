"use strict";
// The Records section (docs/console.md): a query builder over records/query, a result table, a record's detail with
// edit, save under its change tag (a conflict shows server, client and ancestor side by side), delete and new record.
// Everything is built with ck.h and textContent, so a field's value is always shown as text.
(function () {
  const ck = window.ck;

  // ---------------------------------------------------------------------------------------------------------------
  // The predicate: CloudKit's NSPredicate subset (docs/query.md), turned into Web Services filterBy. Refusals carry
  // the column of the offending token and ck query's hint, so the page refuses what ck query and CloudKit refuse.

  /** A refusal of the predicate at a column (1-based), in CloudKit's error shape. */
  function PredicateError(column, message, hint) {
    this.column = column;
    this.message = message;
    this.hint = hint || "";
  }

  const SYSTEM_FIELDS = {
    recordName: "recordName", recordID: "recordName", creationDate: "createdTimestamp",
    createdTimestamp: "createdTimestamp", modificationDate: "modifiedTimestamp", modifiedTimestamp: "modifiedTimestamp",
    creatorUserRecordID: "createdUserRecordName", lastModifiedUserRecordID: "modifiedUserRecordName",
  };

  const NEGATION = {
    EQUALS: "NOT_EQUALS", NOT_EQUALS: "EQUALS", LESS_THAN: "GREATER_THAN_OR_EQUALS",
    GREATER_THAN_OR_EQUALS: "LESS_THAN", LESS_THAN_OR_EQUALS: "GREATER_THAN", GREATER_THAN: "LESS_THAN_OR_EQUALS",
    IN: "NOT_IN", NOT_IN: "IN", LIST_CONTAINS: "NOT_LIST_CONTAINS", NOT_LIST_CONTAINS: "LIST_CONTAINS",
    LIST_CONTAINS_ANY: "NOT_LIST_CONTAINS_ANY", NOT_LIST_CONTAINS_ANY: "LIST_CONTAINS_ANY",
    BEGINS_WITH: "NOT_BEGINS_WITH", NOT_BEGINS_WITH: "BEGINS_WITH",
    LIST_MEMBER_BEGINS_WITH: "NOT_LIST_MEMBER_BEGINS_WITH", NOT_LIST_MEMBER_BEGINS_WITH: "LIST_MEMBER_BEGINS_WITH",
  };

  const COMPARISONS = {
    "==": "EQUALS", "=": "EQUALS", "!=": "NOT_EQUALS", "<>": "NOT_EQUALS", "<": "LESS_THAN", "<=": "LESS_THAN_OR_EQUALS",
    "=<": "LESS_THAN_OR_EQUALS", ">": "GREATER_THAN", ">=": "GREATER_THAN_OR_EQUALS", "=>": "GREATER_THAN_OR_EQUALS",
  };

  const REFUSED_OPERATORS = {
    MATCHES: "use BEGINSWITH for a prefix, or self CONTAINS 'word' for a word anywhere in the record's text",
    LIKE: "use BEGINSWITH for a prefix, or self CONTAINS 'word' for a word anywhere in the record's text",
    ENDSWITH: "use BEGINSWITH for a prefix, or self CONTAINS 'word' for a word anywhere in the record's text",
  };

  /** Splits a predicate into tokens {kind, value, column}; kinds: id, num, str, op, punct, end. */
  function tokenize(text) {
    const tokens = [];
    let i = 0;
    while (i < text.length) {
      const c = text[i];
      const column = i + 1;
      if (/\s/.test(c)) { i++; continue; }
      if (c === "'" || c === '"') {
        let value = "";
        let j = i + 1;
        for (;;) {
          if (j >= text.length) throw new PredicateError(column, "unterminated string", "close it with " + c);
          const d = text[j];
          if (d === c) break;
          if (d === "\\" && j + 1 < text.length) {
            const e = text[j + 1];
            value += e === "n" ? "\n" : e === "t" ? "\t" : e;
            j += 2;
            continue;
          }
          value += d;
          j++;
        }
        tokens.push({ kind: "str", value: value, column: column });
        i = j + 1;
        continue;
      }
      const prev = tokens.length ? tokens[tokens.length - 1] : null;
      const signed = (c === "-" || c === "+") && /[0-9]/.test(text[i + 1] || "") &&
        (!prev || prev.kind === "op" || (prev.kind === "punct" && prev.value !== ")" && prev.value !== "}"));
      if (/[0-9]/.test(c) || signed) {
        const m = /^[-+]?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?/.exec(text.slice(i));
        tokens.push({ kind: "num", value: Number(m[0]), integer: !m[1] && !m[2], column: column });
        i += m[0].length;
        continue;
      }
      if (/[A-Za-z_$@]/.test(c)) {
        const m = /^[A-Za-z_$@][A-Za-z0-9_$@.:]*/.exec(text.slice(i));
        tokens.push({ kind: "id", value: m[0], column: column });
        i += m[0].length;
        continue;
      }
      if (c === "%") {
        throw new PredicateError(column, "placeholders (" + text.slice(i, i + 2) + ") take ck query's --arg values, which the console has none of",
          "write the value itself: title == 'milk', due > CAST('2026-01-01T00:00:00Z', \"NSDate\")");
      }
      const two = text.slice(i, i + 2);
      if (["==", "!=", "<>", "<=", "=<", ">=", "=>", "&&", "||"].indexOf(two) >= 0) {
        tokens.push({ kind: "op", value: two, column: column });
        i += 2;
        continue;
      }
      if ("=<>!".indexOf(c) >= 0) { tokens.push({ kind: "op", value: c, column: column }); i++; continue; }
      if ("(){},[]".indexOf(c) >= 0) { tokens.push({ kind: "punct", value: c, column: column }); i++; continue; }
      throw new PredicateError(column, "unexpected character '" + c + "'");
    }
    tokens.push({ kind: "end", value: "", column: text.length + 1 });
    return tokens;
  }

  /** Parses a predicate into {filters, matchesNothing}; throws a PredicateError naming the column. `types` maps the
   *  record type's field names to their schema types ("REFERENCE", "LIST<REFERENCE>"): a quoted record name compared
   *  with a reference field becomes a reference, which ck query writes as --arg ref:NAME and the page has no --arg for. */
  function parsePredicate(text, types) {
    if (!text.trim()) return { filters: [], matchesNothing: false };
    const tokens = tokenize(text);
    let at = 0;
    const peek = () => tokens[at];
    const next = () => tokens[Math.min(at++, tokens.length - 1)]; // never past the end token
    const word = (t) => t.kind === "id" ? t.value.toUpperCase() : null;
    const isWord = (t, w) => word(t) === w;
    const isPunct = (t, p) => t.kind === "punct" && t.value === p;
    const expectPunct = (p, what) => {
      const t = next();
      if (!isPunct(t, p)) throw new PredicateError(t.column, "expected '" + p + "' " + what + ", found " + describe(t));
      return t;
    };

    function describe(t) {
      return t.kind === "end" ? "the end of the predicate" : "'" + t.value + "'";
    }

    function key() {
      const t = next();
      if (t.kind !== "id") throw new PredicateError(t.column, "expected a field name, found " + describe(t));
      const upper = t.value.toUpperCase();
      if (upper === "SUBQUERY" || upper === "FUNCTION" || t.value.indexOf("@") >= 0) {
        throw new PredicateError(t.column, t.value + " is not supported by CloudKit", "compare fields with ==, <, IN, BEGINSWITH or CONTAINS");
      }
      if (t.value.indexOf(".") >= 0) {
        throw new PredicateError(t.column, "key paths (" + t.value + ") are not supported by CloudKit",
          "compare the field itself; for a reference, recordID == a reference");
      }
      return t;
    }

    function fieldOf(t) {
      return SYSTEM_FIELDS[t.value] ? { systemFieldName: SYSTEM_FIELDS[t.value] } : { fieldName: t.value };
    }

    function value() {
      const t = next();
      if (t.kind === "str") return { value: t.value };
      if (t.kind === "num") return { value: t.value };
      if (t.kind === "id") {
        const w = t.value.toUpperCase();
        if (w === "YES" || w === "TRUE") return { value: 1 };
        if (w === "NO" || w === "FALSE") return { value: 0 };
        if (w === "NOW" || w === "NOW()") {
          if (isPunct(peek(), "(")) { next(); expectPunct(")", "after now("); }
          return { value: Date.now(), type: "TIMESTAMP" };
        }
        if (w === "CAST") {
          expectPunct("(", "after CAST");
          const v = next();
          expectPunct(",", "in CAST(value, \"NSDate\")");
          const kind = next();
          if (kind.kind !== "str" || kind.value !== "NSDate") throw new PredicateError(kind.column, "CAST takes \"NSDate\"", "CAST('2026-01-01T00:00:00Z', \"NSDate\")");
          expectPunct(")", "after CAST(…");
          if (v.kind === "num") return { value: Math.round((v.value + 978307200) * 1000), type: "TIMESTAMP" };
          const ms = v.kind === "str" ? Date.parse(v.value) : NaN;
          if (isNaN(ms)) throw new PredicateError(v.column, "CAST needs an ISO 8601 date or seconds since 2001-01-01", "CAST('2026-01-01T00:00:00Z', \"NSDate\")");
          return { value: ms, type: "TIMESTAMP" };
        }
        if (w === "NIL" || w === "NULL") {
          throw new PredicateError(t.column, "CloudKit can't test for a missing value", "use a flag field, or field >= \"\"");
        }
        throw new PredicateError(t.column, "a bare word (" + t.value + ") is a key path, not a value", "quote it: '" + t.value + "'");
      }
      throw new PredicateError(t.column, "expected a value, found " + describe(t));
    }

    function list() {
      expectPunct("{", "to start a list");
      const values = [];
      if (!isPunct(peek(), "}")) {
        for (;;) {
          values.push(value());
          if (isPunct(peek(), ",")) { next(); continue; }
          break;
        }
      }
      expectPunct("}", "to close the list");
      const typed = values.find((v) => v.type);
      const out = { value: values.map((v) => v.value) };
      if (typed) out.type = typed.type + "_LIST";
      return out;
    }

    function refuseModifier() {
      const t = peek();
      if (isPunct(t, "[")) {
        throw new PredicateError(t.column, "modifiers ([c], [d], [cd]) are not supported by CloudKit",
          "BEGINSWITH is case-sensitive; self CONTAINS folds case and accents");
      }
    }

    function comparison() {
      const t = peek();
      const w = word(t);
      if (w === "TRUEPREDICATE") { next(); return { kind: "true", filters: [], column: t.column }; }
      if (w === "FALSEPREDICATE") { next(); return { kind: "false", filters: [], column: t.column }; }
      if (w === "ALL" || w === "NONE") {
        throw new PredicateError(t.column, w + " is not supported by CloudKit", "use ANY for list membership");
      }
      if (w === "ANY" || w === "SOME") {
        next();
        const k = key();
        const op = next();
        refuseModifier();
        if (op.kind === "op" && (op.value === "==" || op.value === "=")) {
          return cmp(t, k, "LIST_CONTAINS", value());
        }
        if (word(op) === "IN") return cmp(t, k, "LIST_CONTAINS_ANY", list());
        if (word(op) === "BEGINSWITH") return cmp(t, k, "LIST_MEMBER_BEGINS_WITH", value());
        throw new PredicateError(op.column, "after ANY " + k.value + " CloudKit takes ==, IN or BEGINSWITH", "ANY tags IN {'a', 'b'}");
      }
      if (t.kind === "id" && t.value === "self") {
        next();
        const op = next();
        if (word(op) !== "CONTAINS") throw new PredicateError(op.column, "self takes CONTAINS (token search)", "self CONTAINS 'oat milk'");
        refuseModifier();
        const v = next();
        if (v.kind !== "str") throw new PredicateError(v.column, "self CONTAINS takes a string", "self CONTAINS 'oat milk'");
        return { kind: "tokens", column: t.column, filters: [{ comparator: "CONTAINS_ALL_TOKENS", fieldValue: { value: v.value } }] };
      }
      if (t.kind === "id" && t.value === "allTokens") {
        next();
        const op = next();
        if (word(op) !== "TOKENMATCHES") throw new PredicateError(op.column, "allTokens takes TOKENMATCHES[cdl]", "self CONTAINS 'milk'");
        if (isPunct(peek(), "[")) { next(); next(); expectPunct("]", "after the modifiers"); }
        const v = next();
        if (v.kind !== "str") throw new PredicateError(v.column, "TOKENMATCHES takes a string", "self CONTAINS 'milk'");
        return { kind: "tokens", column: t.column, filters: [{ comparator: "CONTAINS_ALL_TOKENS", fieldValue: { value: v.value } }] };
      }
      if (t.kind === "id" && t.value === "distanceToLocation:fromLocation:") {
        next();
        expectPunct("(", "after distanceToLocation:fromLocation:");
        const k = key();
        expectPunct(",", "between the field and the location");
        const open = expectPunct("{", "to start a location {latitude, longitude}");
        const lat = next();
        expectPunct(",", "between latitude and longitude");
        const lon = next();
        if (lat.kind !== "num" || lon.kind !== "num") throw new PredicateError(open.column, "a location is {latitude, longitude} in degrees", "{37.33, -122.03}");
        expectPunct("}", "to close the location");
        expectPunct(")", "after the location");
        const op = next();
        if (op.kind !== "op" || (op.value !== "<" && op.value !== "<=")) {
          throw new PredicateError(op.column, "radius tests look inside a circle", "use < or <= with a distance in metres");
        }
        const r = next();
        if (r.kind !== "num") throw new PredicateError(r.column, "expected a distance in metres, found " + describe(r));
        const f = Object.assign(fieldOf(k), { comparator: "NEAR", distance: r.value,
          fieldValue: { value: { latitude: lat.value, longitude: lon.value }, type: "LOCATION" } });
        return { kind: "distance", column: t.column, filters: [f] };
      }
      if (t.kind === "str" || t.kind === "num") {
        // 'work' IN tags: list membership written value first.
        const v = value();
        const op = next();
        if (word(op) !== "IN") throw new PredicateError(op.column, "a value on the left takes IN and a list field", "'work' IN tags");
        return cmp(t, key(), "LIST_CONTAINS", v);
      }
      const k = key();
      const op = next();
      const ow = word(op);
      if (op.kind === "op" && COMPARISONS[op.value]) {
        refuseModifier();
        const declared = (types || {})[k.value] || "";
        if (declared.startsWith("LIST<") && (op.value === "==" || op.value === "=")) {
          throw new PredicateError(op.column, "== on the list field '" + k.value + "' (" + declared + ") is not supported: a list is tested member by member",
            "use " + k.value + " CONTAINS 'x', or ANY " + k.value + " IN {'x', 'y'}");
        }
        return cmp(t, k, COMPARISONS[op.value], value());
      }
      if (ow === "IN") { refuseModifier(); return cmp(t, k, "IN", list()); }
      if (ow === "BEGINSWITH") { refuseModifier(); return cmp(t, k, "BEGINS_WITH", value()); }
      if (ow === "CONTAINS") {
        const declared = (types || {})[k.value] || "";
        if (declared === "STRING") {
          throw new PredicateError(op.column, "CONTAINS on the STRING field '" + k.value + "' is not supported: CONTAINS tests list membership",
            "use BEGINSWITH for a prefix, or self CONTAINS 'word' for a word anywhere in the record's text");
        }
        refuseModifier();
        return cmp(t, k, "LIST_CONTAINS", value());
      }
      if (ow === "BETWEEN") {
        const range = list();
        if (range.value.length !== 2) throw new PredicateError(op.column, "BETWEEN takes two values", k.value + " BETWEEN {1, 5}");
        const low = { value: range.value[0] };
        const high = { value: range.value[1] };
        if (range.type) { low.type = high.type = range.type.replace("_LIST", ""); }
        return { kind: "between", column: t.column, filters: [
          Object.assign(fieldOf(k), { comparator: "GREATER_THAN_OR_EQUALS", fieldValue: low }),
          Object.assign(fieldOf(k), { comparator: "LESS_THAN_OR_EQUALS", fieldValue: high })] };
      }
      if (ow && REFUSED_OPERATORS[ow]) throw new PredicateError(op.column, ow + " is not supported by CloudKit", REFUSED_OPERATORS[ow]);
      if (op.kind === "op" && (op.value === "&&" || op.value === "||" || op.value === "!")) {
        throw new PredicateError(op.column, "expected a comparison after " + k.value + ", found " + describe(op));
      }
      throw new PredicateError(op.column, "expected a comparison operator after " + k.value + ", found " + describe(op),
        "==, !=, <, <=, >, >=, IN, BEGINSWITH, CONTAINS, BETWEEN");
    }

    function cmp(start, k, comparator, fieldValue) {
      const declared = (types || {})[k.value] || "";
      if (!SYSTEM_FIELDS[k.value] && (declared === "REFERENCE" || declared === "LIST<REFERENCE>") && !fieldValue.type) {
        const ref = (v) => typeof v === "string" ? { recordName: v, action: "NONE" } : v;
        const list = Array.isArray(fieldValue.value);
        fieldValue = { value: list ? fieldValue.value.map(ref) : ref(fieldValue.value), type: list ? "REFERENCE_LIST" : "REFERENCE" };
      }
      return { kind: "cmp", column: start.column, filters: [Object.assign(fieldOf(k), { comparator: comparator, fieldValue: fieldValue })] };
    }

    function unary() {
      const t = peek();
      if (isWord(t, "NOT") || (t.kind === "op" && t.value === "!")) {
        next();
        const inner = unary();
        if (inner.kind !== "cmp" || !NEGATION[inner.filters[0].comparator]) {
          throw new PredicateError(t.column, "CloudKit allows NOT only around single comparisons",
            "NOT (status IN {'a', 'b'}) or NOT title BEGINSWITH 'x'");
        }
        const f = Object.assign({}, inner.filters[0], { comparator: NEGATION[inner.filters[0].comparator] });
        return { kind: "cmp", column: t.column, filters: [f] };
      }
      if (isPunct(t, "(")) {
        next();
        const inner = conjunction();
        expectPunct(")", "to close the parenthesis opened at column " + t.column);
        return inner;
      }
      return comparison();
    }

    function conjunction() {
      const parts = [unary()];
      for (;;) {
        const t = peek();
        if (isWord(t, "AND") || (t.kind === "op" && t.value === "&&")) { next(); parts.push(unary()); continue; }
        if (isWord(t, "OR") || (t.kind === "op" && t.value === "||")) {
          throw new PredicateError(t.column, "OR is not supported by CloudKit", "run one query per arm and merge, or use field IN {a, b}");
        }
        break;
      }
      if (parts.length === 1) return parts[0];
      return { kind: "and", column: parts[0].column, filters: [].concat.apply([], parts.map((p) => p.filters)),
        matchesNothing: parts.some((p) => p.kind === "false") };
    }

    const tree = conjunction();
    const rest = peek();
    if (rest.kind !== "end") throw new PredicateError(rest.column, "unexpected " + describe(rest) + " after a complete predicate", "join conditions with AND");
    return { filters: tree.filters, matchesNothing: tree.kind === "false" || tree.matchesNothing === true };
  }

  /** `-priority, title` → sortBy; system fields by their Web Services names. */
  function parseSort(text) {
    return text.split(",").map((s) => s.trim()).filter((s) => s).map((s) => {
      const descending = s[0] === "-";
      const name = descending ? s.slice(1) : s;
      const key = SYSTEM_FIELDS[name] ? { systemFieldName: SYSTEM_FIELDS[name] } : { fieldName: name };
      return Object.assign(key, { ascending: !descending });
    });
  }

  /** A predicate refusal as the CKError ck.showError shows, its reason quoting the predicate under a caret. */
  function predicateError(e, text) {
    const reason = "q-predicate: column " + e.column + ": " + e.message + "\n  " + text + "\n  " +
      " ".repeat(Math.max(0, e.column - 1)) + "^" + (e.hint ? "\nhint: " + e.hint : "");
    return makeError(400, "BAD_REQUEST", reason);
  }

  /** A CKError made in the page (a refusal before any request, or a per-record error inside a 200 answer). */
  function makeError(status, code, reason, body) {
    const err = new ck.CKError(status, { serverErrorCode: code, reason: reason }, reason);
    if (body) err.body = body;
    return err;
  }

  // ---------------------------------------------------------------------------------------------------------------
  // Field values as text in the detail's inputs, and back.

  const EDITABLE = ["STRING", "INT64", "DOUBLE", "TIMESTAMP", "REFERENCE", "LOCATION", "STRING_LIST", "INT64_LIST", "DOUBLE_LIST"];
  const NEW_TYPES = ["STRING", "INT64", "DOUBLE", "TIMESTAMP", "REFERENCE", "LOCATION", "STRING_LIST"];

  /** The type of a Web Services field value, from its `type` or its shape. */
  function typeOf(field) {
    if (field.type) return field.type;
    const v = field.value;
    if (Array.isArray(v)) return typeof v[0] === "number" ? (v.every(Number.isInteger) ? "INT64_LIST" : "DOUBLE_LIST") : "STRING_LIST";
    if (typeof v === "number") return Number.isInteger(v) ? "INT64" : "DOUBLE";
    if (v && typeof v === "object" && "latitude" in v) return "LOCATION";
    if (v && typeof v === "object" && "recordName" in v) return "REFERENCE";
    return "STRING";
  }

  function toText(field) {
    const v = field.value;
    switch (typeOf(field)) {
      case "STRING": return String(v);
      case "INT64": case "DOUBLE": return String(v);
      case "TIMESTAMP": return new Date(Number(v)).toISOString();
      case "REFERENCE": return v && v.recordName ? v.recordName : "";
      case "LOCATION": return v ? v.latitude + ", " + v.longitude : "";
      case "STRING_LIST": case "INT64_LIST": case "DOUBLE_LIST": return JSON.stringify(v || []);
      default: return summary(field);
    }
  }

  /** Text for a value the page does not edit (bytes, assets, lists of them), from ck.cell. */
  function summary(field) {
    return ck.cell(field).textContent || "";
  }

  /** Reads an input's text as a field of `type`; throws an Error naming the field on a bad value. */
  function fromText(name, type, text, original) {
    const bad = (what) => new Error("field " + name + " (" + type + "): " + what);
    switch (type) {
      case "STRING": return { value: text, type: type };
      case "INT64": {
        if (!/^[-+]?[0-9]+$/.test(text.trim())) throw bad("'" + text + "' is not an integer");
        return { value: Number(text.trim()), type: type };
      }
      case "DOUBLE": {
        const n = Number(text.trim());
        if (text.trim() === "" || !isFinite(n)) throw bad("'" + text + "' is not a number");
        return { value: n, type: type };
      }
      case "TIMESTAMP": {
        const t = text.trim();
        const ms = /^[-+]?[0-9]+$/.test(t) ? Number(t) : Date.parse(t);
        if (isNaN(ms)) throw bad("'" + text + "' is not a date (ISO 8601, e.g. 2026-01-01T00:00:00Z, or milliseconds)");
        return { value: ms, type: type };
      }
      case "REFERENCE": {
        if (!text.trim()) throw bad("a reference needs a record name");
        const base = original && original.value && typeof original.value === "object" ? original.value : { action: "NONE" };
        return { value: Object.assign({}, base, { recordName: text.trim() }), type: type };
      }
      case "LOCATION": {
        const m = /^\s*([-+]?[0-9.]+)\s*,\s*([-+]?[0-9.]+)\s*$/.exec(text);
        if (!m) throw bad("'" + text + "' is not 'latitude, longitude'");
        const base = original && original.value && typeof original.value === "object" ? original.value : {};
        return { value: Object.assign({}, base, { latitude: Number(m[1]), longitude: Number(m[2]) }), type: type };
      }
      case "STRING_LIST": case "INT64_LIST": case "DOUBLE_LIST": {
        let list;
        const t = text.trim();
        if (t.startsWith("[")) {
          try { list = JSON.parse(t); } catch (e) { throw bad("not a JSON array: " + e.message); }
          if (!Array.isArray(list)) throw bad("not a JSON array");
        } else {
          list = t === "" ? [] : t.split(",").map((s) => s.trim());
        }
        if (type !== "STRING_LIST") {
          list = list.map((x) => Number(x));
          if (list.some((x) => !isFinite(x) || (type === "INT64_LIST" && !Number.isInteger(x)))) throw bad("not a list of numbers");
        } else {
          list = list.map((x) => String(x));
        }
        return { value: list, type: type };
      }
      default: throw bad("the console does not edit " + type + " values");
    }
  }

  // ---------------------------------------------------------------------------------------------------------------
  // The section.

  const view = {
    root: null,
    stateKey: "",
    query: null,        // the records/query body of the page shown (without its marker)
    marker: null,       // the continuation marker of the page shown
    page: 0,
    ancestor: null,     // the record as the detail loaded it: its change tag is the one a save goes under
  };

  /** The schema's field types by record type, from GET /_ck/schema; read again when a type or field is missing
   *  (development adds them as records are saved). Without the route, nothing is typed and the server decides. */
  const schema = { key: "", types: null };

  async function fieldTypes(recordType, names) {
    const key = ck.state.container + "\u0000" + ck.state.environment;
    const known = schema.key === key && schema.types && schema.types[recordType];
    if (known && names.every((n) => n in known)) return known;
    try {
      const answer = await ck.control("GET", "/_ck/schema");
      const types = {};
      for (const t of (answer && answer.recordTypes) || []) {
        types[t.name] = {};
        for (const f of t.fields || []) types[t.name][f.name] = f.type;
      }
      schema.key = key;
      schema.types = types;
      fillTypeList(Object.keys(types));
    } catch (e) {
      // An older server without the route: values go untyped and the server's refusal says what it needs.
      return {};
    }
    return schema.types[recordType] || {};
  }

  const KEYWORDS = new Set(["AND", "OR", "NOT", "ANY", "SOME", "ALL", "NONE", "IN", "BEGINSWITH", "CONTAINS", "BETWEEN",
    "TRUEPREDICATE", "FALSEPREDICATE", "YES", "NO", "TRUE", "FALSE", "NOW", "CAST", "NIL", "NULL", "SELF", "ALLTOKENS",
    "TOKENMATCHES", "DISTANCETOLOCATION:FROMLOCATION:", "MATCHES", "LIKE", "ENDSWITH"]);

  function fillTypeList(names) {
    const list = $("#q-types");
    if (!list) return;
    list.textContent = "";
    for (const n of names.sort()) list.append(ck.h("option", { value: n }));
  }

  /** Field names a predicate mentions (identifiers that are not keywords), to know whether the cached schema is stale. */
  function mentionedNames(text) {
    try {
      return tokenize(text).filter((t) => t.kind === "id" && !KEYWORDS.has(t.value.toUpperCase()) && !SYSTEM_FIELDS[t.value])
        .map((t) => t.value);
    } catch (e) {
      return [];
    }
  }

  function stateKey() {
    const s = ck.state;
    return [s.container, s.environment, s.database, s.zone, s.user].join("\u0000");
  }

  /** The zoneID a request names: a record's own (its owner too, which tells two owners' shared zones apart), else
   *  the zone picker's. */
  function zoneID(zone) {
    if (zone && zone.zoneName) {
      const out = { zoneName: zone.zoneName };
      if (zone.ownerRecordName) out.ownerRecordName = zone.ownerRecordName;
      return out;
    }
    return { zoneName: ck.state.zone || "_defaultZone" };
  }

  function $(sel) { return view.root ? view.root.querySelector(sel) : null; }

  function render(el) {
    const key = stateKey();
    const fresh = view.root !== el || !el.querySelector("#q-form");
    if (fresh) {
      build(el);
    } else if (key !== view.stateKey) {
      // Another container, environment, database, zone or user: what the page shows belongs to the old one.
      clearResults();
      closeDetail();
    }
    if (fresh || key !== view.stateKey) fieldTypes("", []); // fills the record type suggestions; failures are its own
    view.stateKey = key;
  }

  function build(el) {
    view.root = el;
    el.textContent = "";
    const form = ck.h("form", { id: "q-form", class: "q-form", onsubmit: (e) => { e.preventDefault(); runQuery(); } },
      ck.h("label", { for: "q-type" }, "Record type"),
      ck.h("input", { id: "q-type", type: "text", placeholder: "Note", name: "recordType", list: "q-types", autocomplete: "off" }),
      ck.h("datalist", { id: "q-types" }),
      ck.h("label", { for: "q-predicate" }, "Predicate"),
      ck.h("input", { id: "q-predicate", type: "text", name: "predicate", placeholder: "priority > 2 AND title BEGINSWITH 'Buy'",
        title: "CloudKit's predicate syntax, as ck query takes it; Enter runs the query" }),
      ck.h("label", { for: "q-sort" }, "Sort"),
      ck.h("input", { id: "q-sort", type: "text", name: "sort", placeholder: "-priority, title",
        title: "field for ascending, -field for descending; several separated by commas" }),
      ck.h("label", { for: "q-limit" }, "Page size"),
      ck.h("input", { id: "q-limit", type: "number", name: "limit", value: "50", placeholder: "50", title: "1 to 200" }),
      ck.h("button", { id: "q-run", type: "submit" }, "Run query"),
      ck.h("button", { id: "record-new", type: "button", onclick: () => openNew() }, "New record"));
    el.append(form,
      ck.h("p", { id: "q-status", class: "q-status", role: "status" }),
      ck.h("div", { class: "results-wrap" }, ck.h("table", { id: "results", class: "results" })),
      ck.h("div", { class: "q-paging" },
        ck.h("button", { id: "q-next", type: "button", disabled: true, onclick: () => nextPage() }, "Next page")),
      ck.h("div", { id: "record-detail", class: "record-detail", hidden: true }),
      ck.h("form", { id: "new-record", class: "new-record", hidden: true, onsubmit: (e) => { e.preventDefault(); createRecord(); } }));
  }

  function clearResults() {
    view.query = null;
    view.marker = null;
    view.page = 0;
    const t = $("#results");
    if (t) t.textContent = "";
    const s = $("#q-status");
    if (s) s.textContent = "";
    const n = $("#q-next");
    if (n) n.disabled = true;
  }

  function queryBody(types) {
    const type = $("#q-type").value.trim();
    const text = $("#q-predicate").value;
    let parsed;
    try {
      parsed = parsePredicate(text, types);
    } catch (e) {
      if (e instanceof PredicateError) throw predicateError(e, text);
      throw e;
    }
    const limitText = $("#q-limit").value.trim();
    const limit = limitText === "" ? 50 : Number(limitText);
    if (!Number.isInteger(limit) || limit < 1 || limit > 200) {
      throw makeError(400, "BAD_REQUEST", "q-limit: '" + limitText + "' is not a page size from 1 to 200 (CloudKit's maximum)");
    }
    const query = { recordType: type };
    if (parsed.filters.length) query.filterBy = parsed.filters;
    const sort = parseSort($("#q-sort").value);
    if (sort.length) query.sortBy = sort;
    return { body: { query: query, zoneID: zoneID(), resultsLimit: limit }, matchesNothing: parsed.matchesNothing };
  }

  async function runQuery() {
    ck.clearError();
    let q;
    try {
      const type = $("#q-type").value.trim();
      if (!type) throw makeError(400, "BAD_REQUEST", "q-type: missing: a query needs its record type");
      q = queryBody(await fieldTypes(type, mentionedNames($("#q-predicate").value)));
    } catch (e) {
      ck.showError(e);
      return;
    }
    clearResults();
    view.query = q.body;
    if (q.matchesNothing) {
      // FALSEPREDICATE has no filterBy form: it matches nothing, so nothing is asked.
      showPage([], null);
      return;
    }
    await fetchPage(null);
  }

  async function nextPage() {
    if (!view.query || !view.marker) return;
    await fetchPage(view.marker);
  }

  async function fetchPage(marker) {
    const body = Object.assign({}, view.query);
    if (marker) body.continuationMarker = marker;
    const run = $("#q-run");
    run.disabled = true;
    try {
      const answer = await ck.ws("records/query", body);
      showPage(answer.records || [], answer.continuationMarker || null);
    } catch (e) {
      ck.showError(e);
    } finally {
      run.disabled = false;
    }
  }

  function showPage(records, marker) {
    view.marker = marker;
    view.page += 1;
    const rows = records.filter((r) => !r.serverErrorCode);
    const names = [];
    for (const r of rows) {
      for (const f of Object.keys(r.fields || {})) if (names.indexOf(f) < 0) names.push(f);
    }
    names.sort();
    const table = $("#results");
    table.textContent = "";
    table.append(ck.h("thead", null, ck.h("tr", null,
      ck.h("th", { scope: "col" }, "recordName"),
      names.map((n) => ck.h("th", { scope: "col" }, n)),
      ck.h("th", { scope: "col" }, "modified"))));
    const body = ck.h("tbody", null);
    for (const r of rows) body.append(row(r, names));
    table.append(body);
    $("#q-status").textContent = rows.length + (rows.length === 1 ? " record" : " records") + " on page " + view.page +
      (marker ? "; more match (Next page)" : "");
    $("#q-next").disabled = !marker;
  }

  function row(r, names) {
    const open = () => openRecord(r.recordName, r.zoneID);
    return ck.h("tr", { "data-record": r.recordName, tabindex: "0", class: "record-row",
      onclick: (e) => { if (!e.target.closest("a")) open(); },
      onkeydown: (e) => { if (e.key === "Enter" && !e.target.closest("a")) { e.preventDefault(); open(); } } },
    ck.h("td", { class: "record-name" }, r.recordName),
    names.map((n) => ck.h("td", { "data-field": n }, r.fields && r.fields[n] ? ck.cell(r.fields[n]) : "")),
    ck.h("td", null, r.modified ? ck.cell({ value: r.modified.timestamp, type: "TIMESTAMP" }) : ""));
  }

  /** Opens a record's detail by name (a row, a reference cell, a saved new record). */
  async function openRecord(recordName, zone) {
    ck.clearError();
    try {
      const answer = await ck.ws("records/lookup", { records: [{ recordName: recordName }], zoneID: zoneID(zone) });
      const r = (answer.records || [])[0];
      if (!r) throw makeError(500, "INTERNAL_ERROR", "records/lookup answered no entry for " + recordName, answer);
      if (r.serverErrorCode) throw recordError(r, answer);
      showDetail(r);
    } catch (e) {
      ck.showError(e);
    }
  }

  function recordError(r, answer) {
    return makeError(200, r.serverErrorCode, (r.recordName ? r.recordName + ": " : "") + (r.reason || r.serverErrorCode), answer);
  }

  function closeDetail() {
    view.ancestor = null;
    const d = $("#record-detail");
    if (d) { d.hidden = true; d.textContent = ""; }
  }

  function sysTime(stamp) {
    if (!stamp) return "";
    return ck.h("span", null, ck.cell({ value: stamp.timestamp, type: "TIMESTAMP" }),
      stamp.userRecordName ? " by " + stamp.userRecordName : "");
  }

  function showDetail(r) {
    view.ancestor = r;
    $("#new-record").hidden = true;
    const d = $("#record-detail");
    d.textContent = "";
    const fields = r.fields || {};
    const names = Object.keys(fields).sort();
    d.append(
      ck.h("h2", null, r.recordType + " ", ck.h("span", { class: "detail-name" }, r.recordName)),
      ck.h("dl", { class: "sys" },
        ck.h("dt", null, "recordName"), ck.h("dd", { class: "sys-recordName" }, r.recordName),
        ck.h("dt", null, "recordType"), ck.h("dd", { class: "sys-recordType" }, r.recordType),
        ck.h("dt", null, "zone"), ck.h("dd", { class: "sys-zone" }, r.zoneID ? r.zoneID.zoneName : ck.state.zone),
        ck.h("dt", null, "recordChangeTag"), ck.h("dd", { class: "sys-recordChangeTag" }, r.recordChangeTag || ""),
        ck.h("dt", null, "created"), ck.h("dd", { class: "sys-created" }, sysTime(r.created)),
        ck.h("dt", null, "modified"), ck.h("dd", { class: "sys-modified" }, sysTime(r.modified))),
      ck.h("form", { class: "fields", onsubmit: (e) => { e.preventDefault(); save(); } },
        names.map((n) => fieldEditor(n, fields[n])),
        ck.h("div", { class: "detail-actions" },
          ck.h("button", { id: "record-save", type: "submit" }, "Save"),
          ck.h("button", { id: "record-delete", type: "button", onclick: () => remove() }, "Delete"),
          ck.h("button", { id: "record-close", type: "button", onclick: () => closeDetail() }, "Close"))),
      ck.h("div", { id: "conflict", class: "conflict", hidden: true }));
    d.querySelector("#conflict").hidden = true;
    d.hidden = false;
  }

  function fieldEditor(name, field) {
    const type = typeOf(field);
    const id = "field-" + name;
    const editable = EDITABLE.indexOf(type) >= 0;
    return ck.h("div", { class: "field" },
      ck.h("label", { for: id }, name, " ", ck.h("span", { class: "field-type" }, type)),
      ck.h("input", { id: id, type: "text", "data-field": name, "data-type": type, value: toText(field), disabled: !editable,
        title: editable ? (type.endsWith("_LIST") ? "a JSON array, or values separated by commas" : type) : "the console does not edit " + type + " values" }),
      type === "REFERENCE" || type === "ASSETID" ? ck.h("span", { class: "field-link" }, ck.cell(field)) : null);
  }

  /** The fields the form changed against the loaded record, typed; throws on a value that does not read. */
  function changedFields() {
    const out = {};
    const original = (view.ancestor && view.ancestor.fields) || {};
    for (const input of $("#record-detail").querySelectorAll("form.fields input[data-field]")) {
      if (input.disabled) continue;
      const name = input.getAttribute("data-field");
      const type = input.getAttribute("data-type");
      if (original[name] && input.value === toText(original[name])) continue;
      out[name] = fromText(name, type, input.value, original[name]);
    }
    return out;
  }

  async function modify(operation, record) {
    const answer = await ck.ws("records/modify", { operations: [{ operationType: operation, record: record }],
      zoneID: zoneID(record.zoneID) });
    const r = (answer.records || [])[0];
    if (!r) throw makeError(500, "INTERNAL_ERROR", "records/modify answered no entry for " + (record.recordName || "the new record"), answer);
    return { record: r, answer: answer };
  }

  async function save() {
    ck.clearError();
    const ancestor = view.ancestor;
    if (!ancestor) return;
    let fields;
    try {
      fields = changedFields();
    } catch (e) {
      ck.showError(e);
      return;
    }
    if (!Object.keys(fields).length) { ck.toast("Nothing changed in " + ancestor.recordName); return; }
    await saveUnder(ancestor, ancestor.recordChangeTag, fields);
  }

  /** Saves `fields` over `ancestor` under `tag`; a stale tag opens the conflict view instead. */
  async function saveUnder(ancestor, tag, fields) {
    const button = $("#record-save");
    if (button) button.disabled = true;
    try {
      const { record: r, answer } = await modify("update", { recordName: ancestor.recordName, recordType: ancestor.recordType,
        recordChangeTag: tag, fields: fields, zoneID: ancestor.zoneID });
      if (r.serverErrorCode === "CONFLICT") { await showConflict(ancestor, fields); return; }
      if (r.serverErrorCode) throw recordError(r, answer);
      showDetail(r);
      updateRow(r);
      ck.toast("Saved " + r.recordName);
    } catch (e) {
      ck.showError(e);
    } finally {
      if (button && button.isConnected) button.disabled = false;
    }
  }

  async function showConflict(ancestor, mine) {
    // CloudKit's CONFLICT carries no server record: look it up again.
    const answer = await ck.ws("records/lookup", { records: [{ recordName: ancestor.recordName }],
      zoneID: zoneID(ancestor.zoneID) });
    const server = (answer.records || [])[0];
    if (!server || server.serverErrorCode) {
      throw makeError(409, "CONFLICT", ancestor.recordName + " changed on the server and can no longer be read there (" +
        (server ? server.serverErrorCode + ": " + server.reason : "no answer") + ")", answer);
    }
    const client = {};
    for (const [k, v] of Object.entries(ancestor.fields || {})) client[k] = v;
    for (const [k, v] of Object.entries(mine)) client[k] = v;
    const names = [];
    for (const r of [server.fields || {}, client, ancestor.fields || {}]) for (const k of Object.keys(r)) if (names.indexOf(k) < 0) names.push(k);
    names.sort();
    const column = (cls, title, tag, fields) => ck.h("div", { class: cls },
      ck.h("h3", null, title),
      ck.h("p", { class: "conflict-tag" }, tag ? "recordChangeTag " + tag : "not saved"),
      ck.h("table", null, ck.h("tbody", null, names.map((n) => ck.h("tr",
        { "data-field": n, class: differs(n, server, client, ancestor) ? "differs" : null },
        ck.h("th", { scope: "row" }, n), ck.h("td", null, fields[n] ? ck.cell(fields[n]) : "—"))))));
    const c = $("#conflict");
    c.textContent = "";
    c.append(
      ck.h("p", { class: "conflict-why" }, ancestor.recordName + " changed on the server since this page loaded it (CONFLICT). " +
        "Take the server's version, or keep yours: the fields you changed (" + Object.keys(mine).sort().join(", ") +
        ") are saved over the server's version, its other fields stay."),
      ck.h("div", { class: "conflict-columns" },
        column("conflict-server", "Server (now)", server.recordChangeTag, server.fields || {}),
        column("conflict-client", "Yours (unsaved)", "", client),
        column("conflict-ancestor", "Ancestor (as loaded)", ancestor.recordChangeTag, ancestor.fields || {})),
      ck.h("div", { class: "conflict-actions" },
        ck.h("button", { id: "conflict-take-server", type: "button", onclick: () => takeServer(server) }, "Take server's"),
        ck.h("button", { id: "conflict-keep-mine", type: "button", onclick: () => keepMine(ancestor, server, mine) }, "Keep mine")));
    c.hidden = false;
    ck.showError(makeError(409, "CONFLICT", ancestor.recordName + ": the record changed on the server (its change tag is no longer " +
      ancestor.recordChangeTag + ")"));
    c.querySelector("#conflict-take-server").focus();
  }

  function differs(n, server, client, ancestor) {
    const s = JSON.stringify((server.fields || {})[n] ? server.fields[n].value : null);
    const c = JSON.stringify(client[n] ? client[n].value : null);
    const a = JSON.stringify((ancestor.fields || {})[n] ? ancestor.fields[n].value : null);
    return s !== a || c !== a;
  }

  function takeServer(server) {
    ck.clearError();
    showDetail(server);
    updateRow(server);
    ck.toast("Took the server's version of " + server.recordName);
  }

  async function keepMine(ancestor, server, mine) {
    ck.clearError();
    // The server's record is the new ancestor: a further change there is a new conflict, not silently overwritten.
    await saveUnder(server, server.recordChangeTag, mine);
  }

  function updateRow(r) {
    const tr = $("#results") && Array.from($("#results").querySelectorAll("tr[data-record]")).find((t) => t.getAttribute("data-record") === r.recordName);
    if (!tr) return;
    for (const td of tr.querySelectorAll("td[data-field]")) {
      const f = r.fields && r.fields[td.getAttribute("data-field")];
      td.textContent = "";
      if (f) td.append(ck.cell(f));
    }
  }

  async function remove() {
    ck.clearError();
    const ancestor = view.ancestor;
    if (!ancestor) return;
    try {
      const { record: r, answer } = await modify("delete", { recordName: ancestor.recordName, recordChangeTag: ancestor.recordChangeTag,
        zoneID: ancestor.zoneID });
      if (r.serverErrorCode) throw recordError(r, answer);
      closeDetail();
      const tr = $("#results") && Array.from($("#results").querySelectorAll("tr[data-record]")).find((t) => t.getAttribute("data-record") === ancestor.recordName);
      if (tr) tr.remove();
      ck.toast("Deleted " + ancestor.recordName);
    } catch (e) {
      ck.showError(e);
    }
  }

  // --- a new record ---

  function openNew() {
    ck.clearError();
    closeDetail();
    const f = $("#new-record");
    f.textContent = "";
    const rows = ck.h("div", { class: "new-fields" });
    f.append(
      ck.h("h2", null, "New record"),
      ck.h("label", { for: "new-type" }, "Record type"),
      ck.h("input", { id: "new-type", type: "text", value: $("#q-type").value.trim(), placeholder: "Note" }),
      ck.h("label", { for: "new-name" }, "Record name"),
      ck.h("input", { id: "new-name", type: "text", placeholder: "(empty: the server picks a UUID)" }),
      rows,
      ck.h("div", { class: "detail-actions" },
        ck.h("button", { id: "new-add-field", type: "button", onclick: () => rows.append(newFieldRow()) }, "Add field"),
        ck.h("button", { id: "new-save", type: "submit" }, "Create"),
        ck.h("button", { id: "new-cancel", type: "button", onclick: () => { f.hidden = true; } }, "Cancel")));
    rows.append(newFieldRow());
    f.hidden = false;
    f.querySelector("#new-type").focus();
  }

  function newFieldRow() {
    const r = ck.h("div", { class: "new-field" },
      ck.h("input", { class: "new-field-name", type: "text", placeholder: "field name", "aria-label": "field name" }),
      ck.h("select", { class: "new-field-type", "aria-label": "field type" }, NEW_TYPES.map((t) => ck.h("option", { value: t }, t))),
      ck.h("input", { class: "new-field-value", type: "text", placeholder: "value", "aria-label": "field value" }),
      ck.h("button", { type: "button", class: "new-field-remove", title: "Remove this field", onclick: () => r.remove() }, "Remove"));
    return r;
  }

  async function createRecord() {
    ck.clearError();
    const f = $("#new-record");
    const type = f.querySelector("#new-type").value.trim();
    const name = f.querySelector("#new-name").value.trim();
    const fields = {};
    try {
      if (!type) throw makeError(400, "BAD_REQUEST", "new-type: missing: a record needs its record type");
      for (const row of f.querySelectorAll(".new-field")) {
        const n = row.querySelector(".new-field-name").value.trim();
        const v = row.querySelector(".new-field-value").value;
        if (!n && !v) continue;
        if (!n) throw new Error("a field with the value '" + v + "' has no name");
        fields[n] = fromText(n, row.querySelector(".new-field-type").value, v, null);
      }
      const record = { recordType: type, fields: fields };
      if (name) record.recordName = name;
      const { record: r, answer } = await modify("create", record);
      if (r.serverErrorCode) throw recordError(r, answer);
      f.hidden = true;
      showDetail(r);
      ck.toast("Created " + r.recordName);
    } catch (e) {
      ck.showError(e);
    }
  }

  // A reference cell (ck.cell) opens its record here.
  ck.recordOpener = (reference) => openRecord(reference.recordName, reference.zoneID);
  ck.section("records", "Records", render);
})();
