"""Component-class styles worked out once per state, not once per restyle.

Textual restyles a widget's component classes (``EventList > .event-list--cursor`` …) each
time it restyles the widget: one virtual node and one pass over the stylesheet per class.
The event list has twenty, ~1.7 ms a pass, and a change of focus restyles it twice (its own
``:focus`` watcher, then the screen's focus styles), in the same state both times; so does
the conversation screen's first frame.

:class:`StyledOnce` remembers what the component styles were worked out for: the
stylesheet's rules (a new list after every parse or theme change), and the type, id,
classes and pseudo-classes of the widget and each of its ancestors, which are everything a
selector can match. While that is unchanged, Textual is told the widget has no component
classes for that pass, so it keeps the styles it has.
"""

from __future__ import annotations


class StyledOnce:
    """Mixed into a widget with many component classes, before its Textual base. Not a
    ``DOMNode`` itself: Textual follows a widget's first ``DOMNode`` base for its CSS type
    names and default CSS, which would then skip the real base's."""

    _component_state: tuple | None = None
    _watched: tuple[object, frozenset[str]] | None = None  # (rules, pseudo-classes they use)

    def _get_component_classes(self) -> frozenset[str]:
        classes = super()._get_component_classes()  # type: ignore[misc]
        if not classes or not self.is_attached:
            self._component_state = None
            return classes
        rules = self.app.stylesheet._rules
        pseudo = self._pseudo_classes_used(rules, classes)
        state = (
            rules,
            tuple(
                (
                    node._css_type_name,
                    node.id,
                    frozenset(node._classes),
                    tuple(node.has_pseudo_class(name) for name in pseudo),
                )
                for node in self.ancestors_with_self
            ),
        )
        last = self._component_state
        if (
            last is not None
            and last[0] is rules
            and last[1] == state[1]
            and len(self._component_styles) == len(classes)  # emptied when it was removed
        ):
            return frozenset()  # nothing a selector can see changed: keep the styles
        self._component_state = state
        return classes

    def _pseudo_classes_used(self, rules: object, classes: frozenset[str]) -> tuple[str, ...]:
        """The pseudo-classes named anywhere in a rule that can match a component class
        (``EventList:focus > .event-list--cursor``): the only ones that can change them."""
        watched = self._watched
        if watched is None or watched[0] is not rules:
            rules_map = self.app.stylesheet.rules_map
            names = {"*", "DOMNode", *(f".{name}" for name in classes)}
            used = frozenset().union(
                *(rule.pseudo_classes for name in names for rule in rules_map.get(name, ()))
            )
            watched = self._watched = (rules, used)
        return tuple(sorted(watched[1]))
