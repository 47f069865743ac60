import { wantsRoutes } from '../http/routes/wants';
import { WantsExport } from '../services/wants/wants-export';
import { WantsImports } from '../services/wants/wants-import';
import { WantsLists } from '../services/wants/wants-lists';
import type { FeatureModule } from './feature-module';

/** What the wants feature's routes use; later parts of the feature add their members here. */
export interface WantsServices {
  lists: WantsLists;
  imports: WantsImports;
  exports: WantsExport;
}

/** Wants lists: buyers' lists of the cards they look for (docs/wants.md). */
export const wantsModule: FeatureModule<WantsServices> = {
  name: 'wants',
  api: {
    services: ({ db }) => {
      const lists = new WantsLists(db);
      return { lists, imports: new WantsImports(db, lists), exports: new WantsExport(lists) };
    },
    routes: (services) => wantsRoutes(services),
  },
};
