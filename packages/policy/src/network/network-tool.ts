/** The tool name of network rules: `"network": { "api.example.com": "allow" }`. */
export const NETWORK_TOOL = "network";
