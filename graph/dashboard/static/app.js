// loregate dashboard: small progressive enhancements, no build step. Every
// page works without this script.
"use strict";
(function () {
  // Confirm destructive forms.
  document.querySelectorAll("form[data-confirm]").forEach(function (f) {
    f.addEventListener("submit", function (ev) {
      if (!window.confirm(f.dataset.confirm)) ev.preventDefault();
    });
  });

  // Live character count of the entry content (UTF-16 units, as the API counts).
  document.querySelectorAll("textarea[data-counter]").forEach(function (ta) {
    var out = document.getElementById(ta.dataset.counter);
    var max = ta.getAttribute("maxlength");
    var update = function () { out.textContent = ta.value.length + " / " + max; };
    ta.addEventListener("input", update);
    update();
  });

  // Live check of numeric fields against the range the API accepts
  // (data-min, data-max): the message shows as the member types; the API
  // still judges the save.
  document.querySelectorAll("input[data-range-msg]").forEach(function (inp) {
    var id = inp.id + "-live";
    var check = function () {
      var v = inp.value.trim();
      var bad = v !== "" && (!/^-?[0-9]+$/.test(v) || +v < +inp.dataset.min || +v > +inp.dataset.max);
      var msg = document.getElementById(id);
      if (bad && !msg) {
        msg = document.createElement("p");
        msg.id = id;
        msg.className = "field-error";
        msg.setAttribute("role", "status");
        msg.textContent = inp.dataset.rangeMsg;
        inp.insertAdjacentElement("afterend", msg);
      } else if (!bad && msg) {
        msg.remove();
      }
      if (bad) inp.setAttribute("aria-invalid", "true"); else if (!document.getElementById(inp.name + "-err")) inp.removeAttribute("aria-invalid");
    };
    inp.addEventListener("input", check);
  });

  // Import: drag and drop onto the file input, and a preview on every choice.
  var form = document.getElementById("import-form");
  if (form) {
    var input = document.getElementById("file");
    var drop = document.getElementById("drop");
    var preview = function () {
      if (!input.files || input.files.length === 0) return;
      var out = document.getElementById("preview");
      out.setAttribute("aria-busy", "true");
      fetch(form.dataset.preview, { method: "POST", body: new FormData(form), credentials: "same-origin" })
        .then(function (r) { return r.text(); })
        .then(function (html) {
          var doc = new DOMParser().parseFromString(html, "text/html");
          var got = doc.getElementById("preview");
          var err = doc.getElementById("import-error");
          out.innerHTML = (err ? err.outerHTML : "") + (got ? got.innerHTML : "");
          out.removeAttribute("aria-busy");
        });
    };
    input.addEventListener("change", preview);
    ["target", "mode", "longEntries"].forEach(function (id) {
      document.getElementById(id).addEventListener("change", preview);
    });
    ["dragenter", "dragover"].forEach(function (t) {
      drop.addEventListener(t, function (ev) { ev.preventDefault(); drop.classList.add("over"); });
    });
    ["dragleave", "drop"].forEach(function (t) {
      drop.addEventListener(t, function () { drop.classList.remove("over"); });
    });
    drop.addEventListener("drop", function (ev) {
      ev.preventDefault();
      if (ev.dataTransfer && ev.dataTransfer.files.length > 0) {
        input.files = ev.dataTransfer.files;
        preview();
      }
    });
  }

  // Playground trace: "not admitted only" and the book filter hide rows.
  var trace = document.getElementById("trace");
  if (trace) {
    var only = document.getElementById("not-admitted");
    var bookSel = document.getElementById("trace-book");
    var filter = function () {
      trace.querySelectorAll("tbody tr").forEach(function (tr) {
        var hide = (only.checked && tr.dataset.admitted === "true") || (bookSel && bookSel.value !== "" && tr.dataset.book !== bookSel.value);
        tr.hidden = hide;
      });
    };
    only.addEventListener("change", filter);
    if (bookSel) bookSel.addEventListener("change", filter);
  }

  // Job progress: poll until the job is finished, then reload for the result.
  var job = document.getElementById("job");
  if (job && job.dataset.done !== "true") {
    var poll = function () {
      fetch(job.dataset.poll, { credentials: "same-origin" })
        .then(function (r) { return r.json(); })
        .then(function (j) {
          var st = document.getElementById("job-state"); st.textContent = j.label; st.dataset.state = j.state;
          document.getElementById("job-progress").value = Math.round(j.progress * 100);
          if (j.done) window.location.reload();
          else window.setTimeout(poll, 1000);
        })
        .catch(function () { window.setTimeout(poll, 3000); });
    };
    window.setTimeout(poll, 1000);
  }
})();
