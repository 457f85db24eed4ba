/** The in-memory visibility store the fast tests use, held to the VisibilityStore contract. */
import { InMemoryVisibilityStore } from '../../support/fakes/visibility-store.js';
import { visibilityStoreContract } from '../../support/store-contract/visibility-store.js';

visibilityStoreContract(async (options) => new InMemoryVisibilityStore(options));
