// Starts Redoc on /api/v1/redoc: the schema URL and the response's CSP nonce (for the <style>
// elements Redoc writes) come from the container's data attributes.
(function () {
  "use strict";
  var container = document.getElementById("redoc-container");
  Redoc.init(container.dataset.schemaUrl, { nonce: container.dataset.nonce }, container);
})();
