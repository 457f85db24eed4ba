/** The in-memory registry the fast tests use, held to the RegistryStore contract. */
import { InMemoryRegistryStore } from '../../support/fakes/registry-store.js';
import { registryStoreContract } from '../../support/store-contract/registry-store.js';

registryStoreContract(async () => new InMemoryRegistryStore());
