// Draws an interaction's layout (intentmesh.gateway.v1.InteractionLayout) as a Siri card: the app's
// name, the sections the app drew (its declarative intentmesh.v1.View: stacks, text, rows, images,
// maps) at the size the gateway gave them, and the host's default sections (parameter display values).

/** Makes an element with classes, attributes and children (strings become text). */
export function element(tag, { className, attributes = {}, children = [] } = {}) {
  const made = document.createElement(tag);
  if (className) made.className = className;
  for (const [name, value] of Object.entries(attributes)) made.setAttribute(name, value);
  made.append(...children.filter((child) => child !== null && child !== undefined));
  return made;
}

const SVG = "http://www.w3.org/2000/svg";

function svgElement(tag, attributes = {}, text) {
  const made = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) made.setAttribute(name, String(value));
  if (text !== undefined) made.textContent = text;
  return made;
}

/** A data: URL of an intentmesh.v1.Image (bytes arrive base64 in JSON); null when it has none. */
export function imageSource(image) {
  if (image?.data) return `data:${image.contentType || "image/png"};base64,${image.data}`;
  if (image?.url?.startsWith("data:")) return image.url;
  return null; // The page's CSP allows no other image origin.
}

function drawImage(node) {
  const { image = {}, size = {} } = node.image;
  const source = imageSource(image);
  if (!source) return element("p", { className: "view-missing", children: ["(image not included)"] });
  const drawn = element("img", {
    className: "view-image",
    attributes: { src: source, alt: node.parameterKeyPath ? `Image: ${node.parameterKeyPath}` : "Image" },
  });
  const width = size.width || image.width;
  const height = size.height || image.height;
  if (width) drawn.style.width = `${width}px`;
  if (height) drawn.style.height = `${height}px`;
  return drawn;
}

/**
 * A map around `center` with one pin per annotation (a Placemark with a location), drawn as SVG:
 * the page loads no map tiles. "Your ride" is the vehicle.
 */
function drawMap(node) {
  const { center = {}, annotations = [] } = node.map;
  const pins = annotations.filter((pin) => pin.location);
  const points = [center, ...pins.map((pin) => pin.location)].map((at) => ({
    latitude: at.latitude ?? 0, longitude: at.longitude ?? 0,
  }));
  const width = 340;
  const height = 170;
  const margin = 28;
  const latitudes = points.map((point) => point.latitude);
  const longitudes = points.map((point) => point.longitude);
  const scaleX = Math.cos((((Math.min(...latitudes) + Math.max(...latitudes)) / 2) * Math.PI) / 180);
  const spanX = Math.max((Math.max(...longitudes) - Math.min(...longitudes)) * scaleX, 0.002);
  const spanY = Math.max(Math.max(...latitudes) - Math.min(...latitudes), 0.002);
  const scale = Math.min((width - 2 * margin) / spanX, (height - 2 * margin) / spanY);
  const middleX = ((Math.min(...longitudes) + Math.max(...longitudes)) / 2) * scaleX;
  const middleY = (Math.min(...latitudes) + Math.max(...latitudes)) / 2;
  const project = (at) => ({
    x: width / 2 + ((at.longitude ?? 0) * scaleX - middleX) * scale,
    y: height / 2 - ((at.latitude ?? 0) - middleY) * scale,
  });
  const names = pins.map((pin) => pin.name || `${pin.location.latitude}, ${pin.location.longitude}`);
  const map = svgElement("svg", {
    class: "view-map", viewBox: `0 0 ${width} ${height}`, role: "img",
    "aria-label": `Map: ${names.join(", ") || "no places"}`,
  });
  map.append(svgElement("rect", { class: "map-land", x: 0, y: 0, width, height }));
  for (let step = 1; step < 6; step += 1) {
    map.append(svgElement("line", { class: "map-street", x1: (width * step) / 6, y1: 0, x2: (width * step) / 6, y2: height }));
    map.append(svgElement("line", { class: "map-street", x1: 0, y1: (height * step) / 4, x2: width, y2: (height * step) / 4 }));
  }
  const places = pins.filter((pin) => pin.name !== "Your ride");
  if (places.length >= 2) {
    const [from, to] = places.map((pin) => project(pin.location));
    map.append(svgElement("line", { class: "map-route", x1: from.x, y1: from.y, x2: to.x, y2: to.y }));
  }
  pins.forEach((pin, index) => {
    const at = project(pin.location);
    const isVehicle = pin.name === "Your ride";
    const group = svgElement("g", { class: isVehicle ? "map-pin map-vehicle" : "map-pin", "data-test": "map-pin" });
    group.append(svgElement("circle", { cx: at.x, cy: at.y, r: isVehicle ? 7 : 6 }));
    const labelBelow = isVehicle ? at.y < height - 24 : at.y < 24;
    const anchor = at.x > width * 0.7 ? "end" : at.x < width * 0.3 ? "start" : "middle";
    group.append(svgElement("text", { x: at.x, y: labelBelow ? at.y + 20 : at.y - 11, "text-anchor": anchor }, names[index]));
    map.append(group);
  });
  return map;
}

/** One node of a declarative view. */
export function drawNode(node) {
  if (!node) return null;
  let drawn;
  if (node.stack) {
    const horizontal = node.stack.axis === "AXIS_HORIZONTAL";
    drawn = element("div", {
      className: `view-stack ${horizontal ? "horizontal" : "vertical"}`,
      children: (node.stack.children ?? []).map(drawNode),
    });
  } else if (node.text) {
    drawn = element("p", { className: "view-text", children: [node.text.text ?? ""] });
  } else if (node.row) {
    drawn = element("div", {
      className: "view-row",
      children: [
        element("span", { className: "view-row-label", children: [node.row.label ?? ""] }),
        element("span", { className: "view-row-value", children: [node.row.value ?? ""] }),
      ],
    });
  } else if (node.image) {
    drawn = drawImage(node);
  } else if (node.map) {
    drawn = element("div", { className: "view-map-frame", children: [drawMap(node)] });
  } else {
    return null;
  }
  if (node.role) {
    drawn.dataset.role = node.role;
    drawn.classList.add(`role-${node.role.replace(/[^A-Za-z0-9_-]/g, "")}`);
  }
  if (node.parameterKeyPath) drawn.dataset.parameter = node.parameterKeyPath;
  return drawn;
}

function sizeText(size = {}) {
  return `${Math.round(size.width ?? 0)}×${Math.round(size.height ?? 0)}`;
}

/** A section the app drew: its view at the size the gateway clamped to the display. */
function drawAppSection(section) {
  const view = section.view ?? {};
  const drawn = element("section", {
    className: "card-section app-section",
    attributes: {
      "data-test": "app-section", "data-view-kind": view.kind ?? "",
      "aria-label": `${view.kind || "app view"}, ${sizeText(section.size)}`,
      title: `${view.kind} · ${sizeText(section.size)} pt`,
    },
    children: [drawNode(view.root)],
  });
  if (section.size?.width) drawn.style.width = `${section.size.width}px`;
  if (section.size?.height) drawn.style.minHeight = `${section.size.height}px`;
  return drawn;
}

/** A label for a parameter no declaration labels: "rideStatus.pickupLocation" → "Pickup location". */
export function labelOfKeyPath(keyPath) {
  const words = keyPath.split(".").pop().replace(/\[\d+\]$/, "").replace(/([a-z0-9])([A-Z])/g, "$1 $2").toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** A section the host draws: each parameter's label and display text. */
function drawDefaultSection(section, labels) {
  const list = element("dl", { className: "default-values" });
  for (const shown of section.displayValues ?? []) {
    const keyPath = shown.parameter?.keyPath ?? "";
    list.append(
      element("div", {
        className: "default-value",
        attributes: { "data-parameter": keyPath },
        children: [
          element("dt", { attributes: { title: keyPath }, children: [shown.label || labels.get(keyPath) || labelOfKeyPath(keyPath)] }),
          element("dd", { children: [shown.displayText || "—"] }),
        ],
      }),
    );
  }
  return element("section", {
    className: "card-section default-section", attributes: { "data-test": "default-section" }, children: [list],
  });
}

/** Every image (an intentmesh.v1.Image with bytes) inside a response payload, e.g. UnicornChat's QR code. */
export function imagesIn(value, found = []) {
  if (Array.isArray(value)) value.forEach((item) => imagesIn(item, found));
  else if (value && typeof value === "object") {
    if (typeof value.contentType === "string" && value.contentType.startsWith("image/") && value.data) found.push(value);
    else Object.values(value).forEach((item) => imagesIn(item, found));
  }
  return found;
}

const STAGE_TEXT = {
  STAGE_NEEDS_CONFIRMATION: "Confirm", STAGE_DONE: "Done", STAGE_FAILED: "Failed", LIVE: "Live",
};

/**
 * The card of a layout. `card` says what goes around it: the app name, the stage, the response
 * (its code name is shown), the hosted view context ("HOSTED_VIEW_CONTEXT_MAPS_CARD" or the Siri
 * snippet), the intent's parameter labels, and `live` (a line saying where live updates stand).
 */
export function drawCard(layout, card) {
  const { appName, stage, response, hostedViewContext, labels = new Map(), live } = card;
  const isMapsCard = hostedViewContext === "HOSTED_VIEW_CONTEXT_MAPS_CARD";
  const name = layout?.appName || appName || "App";
  const header = element("header", {
    className: "card-header",
    children: [
      element("span", { className: "app-icon", attributes: { "aria-hidden": "true" }, children: [name.slice(0, 1)] }),
      element("h3", { className: "app-name", attributes: { "data-test": "app-name" }, children: [name] }),
      stage ? element("span", { className: `stage stage-${stage}`, attributes: { "data-test": "stage" }, children: [STAGE_TEXT[stage] ?? stage] }) : null,
      response?.codeName
        ? element("span", { className: "response-code", attributes: { "data-test": "response-code", title: `${response.intentClass} code ${response.code ?? 0}` }, children: [response.codeName] })
        : null,
    ],
  });
  const sections = (layout?.sections ?? []).map((section) =>
    section.kind === "KIND_APP" ? drawAppSection(section) : drawDefaultSection(section, labels),
  );
  const drawnImages = new Set(imagesIn(layout).map((image) => image.data));
  const images = imagesIn(response?.payload).filter((image) => !drawnImages.has(image.data)).map((image) =>
    element("figure", {
      className: "card-section response-image", attributes: { "data-test": "response-image" },
      children: [
        element("img", { attributes: { src: imageSource(image), alt: "Image in the response" } }),
        element("figcaption", { children: ["In the response"] }),
      ],
    }),
  );
  const userInfo = Object.entries(response?.userActivity?.userInfo ?? {});
  const failure = stage === "STAGE_FAILED" && userInfo.length
    ? element("dl", {
      className: "card-section user-info", attributes: { "data-test": "user-info" },
      children: userInfo.map(([key, value]) => element("div", { className: "default-value", children: [element("dt", { children: [key] }), element("dd", { children: [value] })] })),
    })
    : null;
  return element("article", {
    className: `card ${isMapsCard ? "maps-card" : "siri-snippet"}`,
    attributes: {
      id: "result-card", "data-test": "card", "data-stage": stage ?? "", "data-app": name,
      "aria-label": `${name} card`,
    },
    children: [
      header, ...sections, ...images, failure,
      live ? element("p", { className: "card-live", attributes: { "data-test": "card-live", "aria-live": "polite" }, children: [live] }) : null,
    ],
  });
}
