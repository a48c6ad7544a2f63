// Several servers on one PostgreSQL database: who runs which session, calls to workers held by another
// instance, and events relayed between instances.
export { joinCluster, type PostgresCluster } from "./cluster.js";
export { routeToOwners } from "./session-routing.js";
