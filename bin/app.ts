/** `npx cdk synth` / `npx cdk deploy` (cdk.json points here). */
import { buildApp } from '../lib/app.js';

buildApp();
