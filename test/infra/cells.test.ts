import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../lib/app.js';
import { HotspotStack, settingsFromContext } from '../../lib/hotspot-stack.js';
import { inspect } from './template.js';

// A deployment is a cell: a country or a gateway site, at most 400 resellers (one VLAN pool).
// Its id, pool, domain and certificate come from context (docs/scale.md, "Cells").

const CERT = 'arn:aws:acm:eu-west-1:111122223333:certificate/0f0e0d0c-0b0a-0908-0706-050403020100';
const cellContext = {
  'aws:cdk:bundling-stacks': [],
  stage: 'prod',
  cell: 'ci',
  vlanFirstId: 10,
  vlanPoolSize: 400,
  domainName: 'api.ci.example.com',
  certificateArn: CERT,
  backupCopyVaultArn: 'arn:aws:backup:eu-central-1:111122223333:backup-vault:hotspot-copies',
};

const synth = (context: Record<string, unknown>) => {
  const app = new App({ context });
  return settingsFromContext((k) => app.node.tryGetContext(k));
};

describe('a cell', () => {
  const { stack } = buildApp({ context: cellContext });
  const t = inspect(Template.fromStack(stack));

  it('is a stack of its own, named after its stage and cell, every resource tagged with the cell', () => {
    expect(stack.stackName).toBe('Hotspot-prod-ci');
    const [[, table] = []] = t.ofType('AWS::DynamoDB::Table');
    expect(table?.Properties.Tags).toEqual(expect.arrayContaining([{ Key: 'hotspot:cell', Value: 'ci' }]));
  });

  it('serves its API on its own domain, which every function is given as its public address', () => {
    const [[, domain] = []] = t.ofType('AWS::ApiGatewayV2::DomainName');
    expect(domain?.Properties).toMatchObject({
      DomainName: 'api.ci.example.com',
      DomainNameConfigurations: [expect.objectContaining({ CertificateArn: CERT })],
    });
    expect(t.ofType('AWS::ApiGatewayV2::ApiMapping')).toHaveLength(1);
    expect(t.json.Outputs?.ApiDomainTarget).toBeDefined();
    expect(t.envOf('GET /api/v1/forfaits')).toMatchObject({
      CELL_ID: 'ci',
      PUBLIC_BASE_URL: 'https://api.ci.example.com',
      VLAN_FIRST_ID: '10',
      VLAN_POOL_SIZE: '400',
    });
  });

  it('backs its table up weekly, copies each backup to the vault in another region for two weeks, and keeps the local one until the next', () => {
    const [[, plan] = []] = t.ofType('AWS::Backup::BackupPlan');
    const rules = plan?.Properties.BackupPlan as { BackupPlanRule: Record<string, unknown>[] } | undefined;
    expect(rules?.BackupPlanRule).toHaveLength(1);
    const rule = rules?.BackupPlanRule[0];
    expect(rule).toMatchObject({
      ScheduleExpression: 'cron(0 2 ? * SUN *)',
      Lifecycle: { DeleteAfterDays: 8 },
      CopyActions: [
        { DestinationBackupVaultArn: cellContext.backupCopyVaultArn, Lifecycle: { DeleteAfterDays: 14 } },
      ],
    });
    // Point-in-time recovery is the in-region restore, on the table itself.
    const [[, table] = []] = t.ofType('AWS::DynamoDB::Table');
    expect(table?.Properties.PointInTimeRecoverySpecification).toEqual({ PointInTimeRecoveryEnabled: true });
    const [[, selection] = []] = t.ofType('AWS::Backup::BackupSelection');
    const [[tableId] = []] = t.ofType('AWS::DynamoDB::Table');
    expect(JSON.stringify(selection?.Properties)).toContain(tableId as string);
  });

  it("reads the cell's own counts: every alarm on the platform's metrics carries the cell and the stage", () => {
    type Stat = {
      Metric: { Namespace: string; MetricName: string; Dimensions?: { Name: string; Value: string }[] };
    };
    // A single metric's alarm carries it in its own properties, a metric-math alarm in its Metrics.
    const ours = t
      .ofType('AWS::CloudWatch::Alarm')
      .flatMap(([, a]) =>
        a.Properties.Metrics
          ? (a.Properties.Metrics as { MetricStat?: Stat }[]).map((m) => m.MetricStat?.Metric)
          : [a.Properties as Stat['Metric']],
      )
      .filter((m) => m?.Namespace === 'HotspotPlatform') as Stat['Metric'][];
    expect(ours.length).toBeGreaterThan(10);
    // The front's refusals by reason among them (functions/front/service.ts).
    expect(ours.map((m) => m.MetricName)).toEqual(
      expect.arrayContaining([
        'FrontLoginCalls',
        'FrontRefusedUnknownCode',
        'FrontRefusedRouter',
        'FrontLoginErrors',
      ]),
    );
    for (const m of ours) {
      // A metric filter's metric (the API's 429s) has no dimension to give: its name carries both.
      if (m.MetricName === 'Api429-prod-ci') expect(m.Dimensions ?? []).toEqual([]);
      else
        expect(m.Dimensions, m.MetricName).toEqual(
          expect.arrayContaining([
            { Name: 'cell', Value: 'ci' },
            { Name: 'stage', Value: 'prod' },
          ]),
        );
    }
    expect(ours.map((m) => m.MetricName)).toContain('Api429-prod-ci');
    const [[, filter] = []] = t.ofType('AWS::Logs::MetricFilter');
    expect(JSON.stringify(filter?.Properties)).toContain('Api429-prod-ci');
  });

  it('refuses a pool above 400 ids or outside 802.1Q, a domain without its certificate, and a bad cell id', () => {
    expect(() => synth({ vlanPoolSize: 401 })).toThrow(/at most 400/);
    expect(() => synth({ vlanFirstId: 4000, vlanPoolSize: 400 })).toThrow(/2\.\.4094/);
    expect(() => synth({ domainName: 'api.sn.example.com' })).toThrow(/go together/);
    expect(() => synth({ cell: 'Côte d’Ivoire' })).toThrow(/lowercase/);
  });

  it('is the unnamed single deployment without a cell id', () => {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    const plain = new HotspotStack(
      app,
      'Plain',
      settingsFromContext((k) => app.node.tryGetContext(k)),
    );
    const env = inspect(Template.fromStack(plain)).envOf('GET /api/v1/forfaits');
    expect(env.CELL_ID).toBeUndefined();
    expect(buildApp({ context: { 'aws:cdk:bundling-stacks': [] } }).stack.stackName).toBe('Hotspot-prod');
  });
});
