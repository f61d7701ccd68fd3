import type { TestProject } from 'vitest/node';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

import { type DynamoDbLocal, startDynamoDbLocal, waitForDynamo } from '../../bin/local/dynamodb-local.js';

declare module 'vitest' {
  export interface ProvidedContext {
    dynamoEndpoint: string;
  }
}

let dynamo: DynamoDbLocal | undefined;

/** One DynamoDB Local for the whole run (each test file makes its own table in it). */
export async function setup(project: TestProject): Promise<void> {
  let endpoint = process.env.TEST_DYNAMODB_ENDPOINT;
  if (endpoint) await waitForDynamo(endpoint, 5000);
  else {
    dynamo = await startDynamoDbLocal();
    endpoint = dynamo.endpoint;
  }
  project.provide('dynamoEndpoint', endpoint);
}

export async function teardown(): Promise<void> {
  await dynamo?.stop();
}
