// Style sheets are imported for their side effect (Vite bundles them); the type checker only
// needs to know such a module exists.
declare module "*.css";
