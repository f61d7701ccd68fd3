// The CDK app's entry (`npx cdk synth` / `deploy`, cdk.json points here).

/** `npx cdk synth` / `npx cdk deploy` (cdk.json points here). */
import { buildApp } from '../lib/app.js';

buildApp();
