"""What evo shows: reports (:mod:`~evo.show.report`), plots, Graphviz drawings
(:mod:`~evo.show.render`), the explorer page, the decision-point table and interactive
play. It reads trees and run directories; nothing below it imports it."""
