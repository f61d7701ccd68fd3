// How the cell's alarms are made: a name of its own each, paging when they fire and when they clear.

import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import type { Construct } from 'constructs';

/**
 * How the cell's alarms are made. Each has a name of its own, `<stack>-<Name>` (the name the
 * operator reads in the page, and the row of docs/monitoring.md's alarm table), and a paging
 * alarm tells the operations topic both when it fires and when it is over (its OK action).
 */
export interface Pager {
  /** The names' prefix: the cell's stack (`Hotspot-prod-ci`). */
  prefix: string;
  topic: ITopic;
}

/** The alarm's name as CloudWatch shows it. */
export const alarmName = (pager: Pick<Pager, 'prefix'>, name: string): string => `${pager.prefix}-${name}`;

/** A CloudWatch alarm that pages the operations topic when it fires and when it clears. */
export function pagingAlarm(
  scope: Construct,
  pager: Pager,
  name: string,
  props: Omit<cloudwatch.AlarmProps, 'alarmName'>,
): cloudwatch.Alarm {
  const alarm = new cloudwatch.Alarm(scope, name, { ...props, alarmName: alarmName(pager, name) });
  const action = new SnsAction(pager.topic);
  alarm.addAlarmAction(action);
  alarm.addOkAction(action);
  return alarm;
}
