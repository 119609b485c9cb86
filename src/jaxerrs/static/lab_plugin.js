// jaxerrs for JupyterLab 4 and Notebook 7: the plain plugin beside the mime renderer (lab_extension.js).
// It asks for no service, only the application, so that a panel can find the notebook it sits in.
import { setApp } from "./lab_extension.js";

export default {
  id: "jaxerrs:app",
  description: "Lets jaxerrs panels find their notebook, to insert a fix below the failing cell.",
  autoStart: true,
  activate: (app) => setApp(app),
};
