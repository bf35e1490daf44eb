"""The manifest Describe serves: Info.plist and AppIntentVocabulary.plist, read as SiriKit reads
them, plus what the handlers declare about their parameters."""
import os
import plistlib
from dataclasses import dataclass

from intentmesh.v1 import manifest_pb2, view_pb2

from .catalog import WORKOUT_NAMES


@dataclass(frozen=True)
class Plists:
    """Info.plist and AppIntentVocabulary.plist (empty when absent) of a manifest folder."""

    info: dict
    vocabulary: dict

    @staticmethod
    def load(folder):
        with open(os.path.join(folder, "Info.plist"), "rb") as file:
            info = plistlib.load(file)
        vocabulary = {}
        path = os.path.join(folder, "AppIntentVocabulary.plist")
        if os.path.exists(path):
            with open(path, "rb") as file:
                vocabulary = plistlib.load(file)
        return Plists(info, vocabulary)


def build(plists, handlers, app_services):
    """The ExtensionManifest of `plists` and `handlers` (by class); the plist's IntentsSupported
    must be exactly the handlers' classes."""
    info, vocabulary = plists.info, plists.vocabulary
    attributes = info.get("NSExtension", {}).get("NSExtensionAttributes", {})
    supported = attributes.get("IntentsSupported", [])
    restricted = attributes.get("IntentsRestrictedWhileLocked", [])
    missing = [name for name in supported if name not in handlers]
    if missing or set(handlers) - set(supported):
        raise SystemExit(
            f"Info.plist lists {supported}, the handlers are for {sorted(handlers)}: they must be the same classes"
        )
    manifest = manifest_pb2.ExtensionManifest(
        app_name=info["CFBundleDisplayName"],
        service_version=info.get("CFBundleShortVersionString", ""),
        intents_restricted_while_locked=restricted,
        vocabulary_types=[WORKOUT_NAMES],
        app_services=app_services,
    )
    for alternative in info.get("INAlternativeAppNames", [])[:3]:
        manifest.alternative_app_names.add(
            name=alternative["INAlternativeAppName"],
            pronunciation_hint=alternative.get("INAlternativeAppNamePronunciationHint", ""),
        )
    for name in supported:
        handler = handlers[name]
        declaration = manifest.intents.add(
            intent_class=name,
            payload_type=handler.payload_type.DESCRIPTOR.full_name,
            response_type=handler.response_type.DESCRIPTOR.full_name,
            restricted_while_locked=name in restricted,
            requires_user_confirmation=handler.requires_user_confirmation,
            supports_live_updates=handler.supports_live_updates,
            confirmation_prompt=handler.confirmation_prompt,
        )
        for parameter in handler.parameters:
            declaration.parameters.add(
                key_path=parameter.key_path,
                is_array=parameter.is_array,
                value_type=parameter.value_type,
                prompt=parameter.prompt,
                label=parameter.label,
            )
        for parameter_class, key_path in handler.view_parameters():
            declaration.view_parameters.append(view_pb2.Parameter(parameter_class=parameter_class, key_path=key_path))
    for entry in vocabulary.get("ParameterVocabularies", []):
        parameter_vocabulary = manifest.parameter_vocabularies.add(parameter_names=entry.get("ParameterNames", []))
        for item in entry.get("ParameterVocabulary", []):
            added = parameter_vocabulary.items.add(identifier=item.get("VocabularyItemIdentifier", ""))
            for synonym in item.get("VocabularyItemSynonyms", []):
                added.synonyms.add(
                    phrase=synonym.get("VocabularyItemPhrase", ""),
                    pronunciation=synonym.get("VocabularyItemPronunciation", ""),
                    examples=synonym.get("VocabularyItemExamples", []),
                )
    for entry in vocabulary.get("IntentPhrases", []):
        manifest.intent_phrases.add(intent_name=entry["IntentName"], examples=entry.get("IntentExamples", []))
    return manifest

