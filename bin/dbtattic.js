#!/usr/bin/env node
// The compiled CLI as the build bundles it (scripts/bundle-cli.mjs): dist/cli/main.js and what it loads.
import { main } from '../dist/bundle/main.mjs';

process.exitCode = await main(process.argv.slice(2));
