import { type CfnElement, NestedStack, type Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';

/** Queries over a synthesized template, by what a route-table row declares. */

export interface Resource {
  Type: string;
  Properties: Record<string, unknown>;
  DeletionPolicy?: string;
  UpdateReplacePolicy?: string;
}

export interface Statement {
  Effect: 'Allow' | 'Deny';
  Action: string | string[];
  Resource: unknown;
  Condition?: Record<string, unknown>;
}

export const actionsOf = (s: Statement): string[] => [s.Action].flat();

export function inspect(template: Template) {
  const json = template.toJSON() as {
    Resources: Record<string, Resource>;
    Outputs?: Record<string, unknown>;
    Mappings?: Record<string, Record<string, Record<string, string>>>;
  };
  const resources = json.Resources;
  const ofType = (type: string) => Object.entries(resources).filter(([, r]) => r.Type === type);

  /** The logical id of the function of a route key (its description starts with `<key>:`). */
  const functionIdOf = (key: string): string => {
    const found = ofType('AWS::Lambda::Function').filter(([, r]) =>
      String(r.Properties.Description ?? '').startsWith(`${key}:`),
    );
    if (found.length !== 1) throw new Error(`${found.length} functions for ${key}`);
    return (found[0] as [string, Resource])[0];
  };
  const functionOf = (key: string): Resource => resources[functionIdOf(key)] as Resource;

  /** Every IAM statement attached to the role of a function. */
  const statementsOfFunction = (fnId: string): Statement[] => {
    const fn = resources[fnId];
    if (!fn) throw new Error(`no resource ${fnId}`);
    const role = (fn.Properties.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
    return ofType('AWS::IAM::Policy')
      .filter(([, p]) => (p.Properties.Roles as { Ref: string }[]).some((r) => r.Ref === role))
      .flatMap(([, p]) => (p.Properties.PolicyDocument as { Statement: Statement[] }).Statement);
  };
  const statementsOf = (key: string) => statementsOfFunction(functionIdOf(key));
  const envOf = (key: string) =>
    (functionOf(key).Properties.Environment as { Variables: Record<string, unknown> }).Variables;

  /**
   * The layer ARNs of a function as deployed in `region`: a region-agnostic stack names a
   * layer by `Fn::FindInMap` on the region, resolved here through the template's mappings.
   */
  const layersOfFunction = (fnId: string, region: string): string[] =>
    ((resources[fnId]?.Properties.Layers ?? []) as unknown[]).map((layer) => {
      if (typeof layer === 'string') return layer;
      const find = (layer as { 'Fn::FindInMap'?: [string, unknown, string] })['Fn::FindInMap'];
      if (!find) throw new Error(`${fnId}: unexpected layer ${JSON.stringify(layer)}`);
      const [map, key, attribute] = find;
      if (JSON.stringify(key) !== JSON.stringify({ Ref: 'AWS::Region' })) {
        throw new Error(`${fnId}: layer mapped by ${JSON.stringify(key)}`);
      }
      return String(json.Mappings?.[map]?.[region]?.[attribute]);
    });

  return {
    json,
    resources,
    ofType,
    functionIdOf,
    functionOf,
    statementsOf,
    statementsOfFunction,
    envOf,
    layersOfFunction,
  };
}

/**
 * The main stack's template with the API's areas that deploy as nested stacks of their own
 * (`NESTED_AREAS`, lib/hotspot-stack.ts) merged in, their parameters replaced by what the main
 * stack passes them: the whole API (every route, function and grant) in one template. The
 * RADIUS front's nested stack is left out (test/infra/radius-front.test.ts reads it).
 */
export function apiTemplate(stack: Stack): Template {
  const main = Template.fromStack(stack).toJSON() as { Resources: Record<string, Resource> };
  const resources = { ...main.Resources };
  for (const child of stack.node.children) {
    if (!(child instanceof NestedStack) || child.node.id === 'RadiusFront') continue;
    const id = stack.getLogicalId(child.nestedStackResource as CfnElement);
    const given = (main.Resources[id]?.Properties.Parameters ?? {}) as Record<string, unknown>;
    const resolve = (value: unknown): unknown => {
      if (Array.isArray(value)) return value.map(resolve);
      if (value === null || typeof value !== 'object') return value;
      const ref = (value as { Ref?: unknown }).Ref;
      if (typeof ref === 'string' && Object.keys(value).length === 1 && ref in given) return given[ref];
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolve(v)]));
    };
    const nested = Template.fromStack(child).toJSON() as { Resources: Record<string, Resource> };
    for (const [key, resource] of Object.entries(nested.Resources)) {
      if (key in resources) throw new Error(`${key} is in both the main stack and ${child.node.id}`);
      resources[key] = resolve(resource) as Resource;
    }
  }
  return Template.fromJSON({ ...main, Resources: resources });
}
