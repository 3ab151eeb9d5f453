// The hall projector: show one slide at a time and move on every few seconds, by itself.
// htmx replaces the slides when the event changes; the slide on show stays in place.
(function () {
  "use strict";
  var index = 0;
  var seconds = parseInt(document.body.getAttribute("data-slide-seconds"), 10) || 12;

  function show() {
    var slides = document.querySelectorAll("#screen-body .slide");
    if (!slides.length) { return; }
    index = index % slides.length;
    for (var i = 0; i < slides.length; i++) {
      slides[i].classList.toggle("current", i === index);
    }
  }

  function clock() {
    var el = document.querySelector(".screen-clock");
    if (!el) { return; }
    var now = new Date();
    el.textContent = ("0" + now.getHours()).slice(-2) + ":" + ("0" + now.getMinutes()).slice(-2);
  }

  document.addEventListener("DOMContentLoaded", function () {
    show();
    clock();
    window.setInterval(function () { index += 1; show(); }, seconds * 1000);
    window.setInterval(clock, 10000);
  });
  document.addEventListener("htmx:afterSwap", show);
})();
