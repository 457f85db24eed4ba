/** The latest heartbeat of a started activity: kept beside the state so heartbeats never contend with it. */
export interface ActivityHeartbeat {
  readonly details?: string;
  /** Epoch seconds. */
  readonly at: number;
}

/** The latest heartbeat of each started activity, written apart from its run's state. */
export interface HeartbeatStore {
  /** `expiresAt` (epoch seconds): when the heartbeat may go, set when the run's latest expiry is known. */
  putHeartbeat(
    runId: string,
    scheduledEventId: number,
    heartbeat: ActivityHeartbeat,
    expiresAt?: number,
  ): Promise<void>;
  getHeartbeat(runId: string, scheduledEventId: number): Promise<ActivityHeartbeat | undefined>;
}
