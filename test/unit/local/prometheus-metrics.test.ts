import { describe, expect, it } from 'vitest';
import { parseExposition } from '../../../console/src/metrics-model.js';
import { throttledEvent } from '../../../lib/core/swf-metrics.js';
import {
  PrometheusMetrics,
  prometheusName,
  snakeCase,
} from '../../../lib/local/prometheus-metrics.js';

const workflow = { Domain: 'orders', WorkflowTypeName: 'Order', WorkflowTypeVersion: '1' };

describe("SWF's metrics in Prometheus' text format", () => {
  it("names each metric swf_ and SWF's name in snake case, by kind", () => {
    expect(prometheusName('WorkflowsCompleted')).toBe('swf_workflows_completed_total');
    expect(prometheusName('ActivityTaskScheduleToStartTime')).toBe(
      'swf_activity_task_schedule_to_start_time_ms',
    );
    expect(prometheusName('StartedActivityTasksTimedOutOnHeartbeat')).toBe(
      'swf_started_activity_tasks_timed_out_on_heartbeat_total',
    );
    expect(prometheusName('PendingTasks')).toBe('swf_pending_tasks');
    expect(snakeCase('APIName')).toBe('api_name');
    expect(snakeCase('TaskListClassification')).toBe('task_list_classification');
  });

  it('counts samples under their dimensions as labels, times as histograms', async () => {
    const metrics = new PrometheusMetrics();
    metrics.record([
      { name: 'WorkflowsCompleted', dimensions: workflow, value: 1 },
      { name: 'WorkflowsCompleted', dimensions: workflow, value: 1 },
      { name: 'WorkflowStartToCloseTime', dimensions: workflow, value: 1200 },
      throttledEvent('RespondActivityTaskCompleted', 'Workflow'),
    ]);
    const samples = parseExposition(await metrics.exposition());
    const labels = { domain: 'orders', workflow_type_name: 'Order', workflow_type_version: '1' };
    expect(samples).toContainEqual({ name: 'swf_workflows_completed_total', labels, value: 2 });
    expect(samples).toContainEqual({
      name: 'swf_workflow_start_to_close_time_ms_bucket',
      labels: { ...labels, le: '2500' },
      value: 1,
    });
    expect(samples).toContainEqual({
      name: 'swf_workflow_start_to_close_time_ms_bucket',
      labels: { ...labels, le: '1000' },
      value: 0,
    });
    expect(samples).toContainEqual({
      name: 'swf_throttled_events_total',
      labels: { api_name: 'RespondActivityTaskCompleted', throttling_scope: 'Workflow' },
      value: 1,
    });
  });

  it('counts the tasks waiting on each list it was told of, at every scrape', async () => {
    const waiting = new Map([['decision|orders|deciders', 3]]);
    const metrics = new PrometheusMetrics(
      async (kind, domain, list) => waiting.get(`${kind}|${domain}|${list}`) ?? 0,
    );
    metrics.noteTaskList('decision', 'orders', 'deciders');
    metrics.noteTaskList('activity', 'orders', 'workers');
    const pending = async () =>
      parseExposition(await metrics.exposition()).filter((s) => s.name === 'swf_pending_tasks');
    expect(await pending()).toEqual([
      {
        name: 'swf_pending_tasks',
        labels: { domain: 'orders', task_list_name: 'deciders', task_list_classification: 'D' },
        value: 3,
      },
      {
        name: 'swf_pending_tasks',
        labels: { domain: 'orders', task_list_name: 'workers', task_list_classification: 'A' },
        value: 0,
      },
    ]);
    waiting.set('decision|orders|deciders', 1);
    expect((await pending())[0]?.value).toBe(1);
  });
});
