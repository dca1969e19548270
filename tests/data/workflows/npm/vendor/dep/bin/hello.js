#!/usr/bin/env node
console.log("hello " + require("../index.js").answer());
