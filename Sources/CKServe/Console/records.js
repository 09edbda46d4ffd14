"use strict";
// Filled in by issue 26 (docs/console.md).
