/** The in-memory poller slots the fast tests use, held to the PollerLeaseStore contract. */
import { InMemoryPollerLeases } from '../../support/fakes/poller-leases.js';
import { pollerLeasesContract } from '../../support/store-contract/poller-leases.js';

pollerLeasesContract(async () => new InMemoryPollerLeases());
