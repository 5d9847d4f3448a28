/** The routes this server offers, read once from its OpenAPI document (see getCapabilities). */
import { useQuery } from "@tanstack/react-query";
import { keys } from "./keys.js";
import { getCapabilities } from "./resources.js";

export function useCapabilities(): Set<string> | undefined {
  return useQuery({ queryKey: keys.capabilities, queryFn: getCapabilities }).data;
}
