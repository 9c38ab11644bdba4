-- Argo CD health of an apps/DaemonSet (resource.customizations.health.apps_DaemonSet).
-- Degraded while stallwatch marks its rollout stalled (the Stalled condition of
-- --daemonset-conditions), with the condition's message: node, cause, suspect, since when.
-- Otherwise Argo CD's own rules for DaemonSets, which a custom check replaces: Progressing until
-- the controller has observed the current generation, then (RollingUpdate) until every desired
-- node runs an updated pod and every one is available; Healthy after.
local hs = {}
local status = obj.status or {}
if status.conditions ~= nil then
  for _, condition in ipairs(status.conditions) do
    if condition.type == "Stalled" and condition.status == "True" then
      hs.status = "Degraded"
      hs.message = condition.message
      return hs
    end
  end
end
local generation = obj.metadata.generation or 0
local observed = status.observedGeneration or 0
if generation > observed then
  hs.status = "Progressing"
  hs.message = "Waiting for the DaemonSet controller to observe generation " .. generation
  return hs
end
local strategy = (obj.spec or {}).updateStrategy or {}
local desired = status.desiredNumberScheduled or 0
local updated = status.updatedNumberScheduled or 0
local available = status.numberAvailable or 0
if strategy.type == "OnDelete" then
  hs.status = "Healthy"
  hs.message = updated .. " of " .. desired .. " nodes run the current template (OnDelete)"
  return hs
end
if updated < desired then
  hs.status = "Progressing"
  hs.message = "Rolling out: " .. updated .. " of " .. desired .. " nodes updated"
  return hs
end
if available < desired then
  hs.status = "Progressing"
  hs.message = "Rolling out: " .. available .. " of " .. desired .. " pods available"
  return hs
end
hs.status = "Healthy"
hs.message = available .. " of " .. desired .. " pods available"
return hs
