import { render } from "preact";
import { App } from "./app.js";
import { Console } from "./console.js";
import "./app.css";

render(<App console={new Console()} />, document.getElementById("app")!);
