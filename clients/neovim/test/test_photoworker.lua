-- Headless test of the Neovim client against the built worker:
--   nvim --headless -u NONE -i NONE --cmd 'set rtp^=clients/neovim' -l? (0.7 has no -l): -c 'luafile THIS'
-- Needs $PHOTOWORKER_BIN and $PHOTOWORKER_CORPUS; writes its verdict to $PHOTOWORKER_TEST_OUT and the worker's
-- pid to $PHOTOWORKER_TEST_OUT.pid (the runner checks that no worker outlives Neovim); exits 1 on failure.
local pw = require('photoworker')
local out = vim.env.PHOTOWORKER_TEST_OUT
local corpus = vim.env.PHOTOWORKER_CORPUS
local scratch = vim.fn.tempname()
vim.fn.mkdir(scratch, 'p')
local passed, failures = 0, {}

local function check(ok, what)
  if ok then passed = passed + 1 else table.insert(failures, what) end
end

local function photo(name, folder)
  local dir = folder and (scratch .. '/' .. folder) or scratch
  vim.fn.mkdir(dir, 'p')
  local dest = dir .. '/' .. name
  vim.fn.writefile(vim.fn.readfile(corpus .. '/photos/' .. name, 'b'), dest, 'b')
  return dest
end

local messages = {}
local notify = vim.notify
vim.notify = function(text, level)
  table.insert(messages, text)
  return notify(text, level)
end
local function said(pattern)
  for _, m in ipairs(messages) do if m:find(pattern) then return true end end
  return false
end

-- palette: hex codes inserted at the cursor, for the image named under the cursor
local girl = photo('girl-1.jpg')
vim.api.nvim_buf_set_lines(0, 0, -1, false, { 'colours of ' .. girl .. ': ' })
vim.fn.cursor(1, 1)
vim.fn.search('girl-1')
vim.cmd('PhotoworkerPalette 4')
check(vim.wait(30000, function() return vim.fn.getline(1):find('#%x%x%x%x%x%x') ~= nil end, 10), 'palette inserted: ' .. vim.fn.getline(1))
local count = 0
for _ in vim.fn.getline(1):gmatch('#%x%x%x%x%x%x') do count = count + 1 end
check(count == 4, 'four colours: ' .. vim.fn.getline(1))
vim.fn.writefile({ tostring(pw.pid()) }, out .. '.pid')

-- the phone's formats count as images under the cursor: a HEIC's palette
local heic = scratch .. '/girl.heic'
vim.fn.writefile(vim.fn.readfile(corpus .. '/formats/girl.heic', 'b'), heic, 'b')
vim.cmd('enew!')
vim.api.nvim_buf_set_lines(0, 0, -1, false, { 'colours of ' .. heic .. ': ' })
vim.fn.cursor(1, 1)
vim.fn.search('girl.heic')
vim.cmd('PhotoworkerPalette 3')
check(vim.wait(30000, function() return vim.fn.getline(1):find('#%x%x%x%x%x%x') ~= nil end, 10), 'HEIC palette inserted: ' .. vim.fn.getline(1))

-- thumbnail and sticker of the buffer's own image
vim.cmd('edit! ' .. vim.fn.fnameescape(girl))
vim.cmd('PhotoworkerThumbnail 64')
check(vim.wait(30000, function() return vim.fn.filereadable(scratch .. '/girl-1-thumb.jpg') == 1 end, 10), 'thumbnail written')
vim.cmd('PhotoworkerSticker')
check(vim.wait(60000, function() return vim.fn.filereadable(scratch .. '/girl-1-sticker.png') == 1 end, 10), 'sticker written')

-- a clip under the cursor: its sticker is animated, cut in every frame
local clip = scratch .. '/cutout.mp4'
vim.fn.writefile(vim.fn.readfile(corpus .. '/motion/cutout.mp4', 'b'), clip, 'b')
vim.cmd('enew!')
vim.api.nvim_buf_set_lines(0, 0, -1, false, { 'the clip ' .. clip })
vim.fn.cursor(1, 1)
vim.fn.search('cutout')
vim.cmd('PhotoworkerSticker')
check(vim.wait(60000, function() return said('animated sticker: 12 frames %-> ') end, 10),
  'the clip\'s animated sticker is reported: ' .. vim.inspect(messages))
check(vim.fn.filereadable(scratch .. '/cutout-sticker.webp') == 1, 'the animated sticker written')

-- the separate subjects of a two-subject photo, each with its point; the sticker of the one a point selects
local pair = scratch .. '/pair.jpg'
vim.fn.writefile(vim.fn.readfile(corpus .. '/subjects/pair.jpg', 'b'), pair, 'b')
vim.cmd('edit! ' .. vim.fn.fnameescape(pair))
vim.cmd('PhotoworkerSubjects')
check(vim.wait(60000, function() return said('subject 2: ') end, 10), 'two subjects listed: ' .. vim.inspect(messages))
local px, py
for _, m in ipairs(messages) do
  local bx, x, y = m:match('subject %d: box (%d+),%d+ %d+x%d+, point (%d+) (%d+)')
  if bx and tonumber(bx) >= 156 then px, py = x, y end
end
check(px ~= nil, 'the right-hand subject is listed with its point: ' .. vim.inspect(messages))
if px then
  vim.cmd('PhotoworkerSticker ' .. px .. ' ' .. py)
  check(vim.wait(60000, function() return said('sticker of the subject at ' .. px .. ' ' .. py .. ': box') end, 10),
    'the pointed sticker is reported: ' .. vim.inspect(messages))
  local right = false
  for _, m in ipairs(messages) do
    local bx = m:match('sticker of the subject at %d+ %d+: box (%d+),')
    if bx and tonumber(bx) >= 156 then right = true end
  end
  check(right and vim.fn.filereadable(scratch .. '/pair-sticker.png') == 1, 'the right-hand subject alone: ' .. vim.inspect(messages))
end
vim.cmd('PhotoworkerSticker 12')
check(said('a point is two numbers'), 'a point of one number is explained')

-- a folder, with progress in the status line
for _, name in ipairs({ 'girl-1.jpg', 'animal-2.jpg', 'car-1.jpg' }) do photo(name, 'batch') end
local seen = {}
local timer = vim.loop.new_timer()
timer:start(0, 5, vim.schedule_wrap(function() seen[pw.status()] = true end))
vim.cmd('PhotoworkerProcess ' .. vim.fn.fnameescape(scratch .. '/batch'))
check(vim.wait(120000, function() return said('3 done, 0 failed') end, 10), 'the folder is reported done')
timer:stop()
check(#vim.fn.glob(scratch .. '/batch/photoworker-out/*-sticker.png', false, true) == 3, 'three stickers from the folder')
local progressed = false
for s in pairs(seen) do if s:match('^photos.process [123]/3$') then progressed = true end end
check(progressed, 'progress shown in the status line: ' .. vim.inspect(vim.tbl_keys(seen)))

-- cancellation: the running job stops (Neovim's client mutes the -32800 reply; the worker's jobs.list is empty)
local answered = false
local id = pw.request('diagnostics.sleep', { ms = 60000 }, function() answered = true end)
check(id ~= nil, 'the sleep was sent')
vim.cmd('PhotoworkerCancel')
check(said('cancelled diagnostics.sleep'), 'the cancel is reported')
-- The cancelled task ends a moment after the cancel is read: ask until jobs.list is empty.
local jobs, asked = nil, false
local function empty()
  if not asked then
    asked = true
    pw.request('jobs.list', nil, function(_, result) jobs, asked = result.jobs, false end)
  end
  return jobs ~= nil and #jobs == 0
end
check(vim.wait(10000, empty, 10), 'no job left running: ' .. vim.inspect(jobs))
check(not answered, 'no late callback for the cancelled request')

-- a missing image is a clear message
vim.cmd('enew!')
vim.api.nvim_buf_set_lines(0, 0, -1, false, { 'nothing here' })
vim.cmd('PhotoworkerPalette')
check(said('no image'), 'no image under the cursor is explained')

vim.fn.writefile(vim.list_extend({ string.format('%d passed, %d failed', passed, #failures) }, failures), out)
vim.cmd(#failures == 0 and 'qall!' or 'cquit!')
