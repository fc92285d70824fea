-- The worker: spawned on first use from $PHOTOWORKER_BIN or PATH, one per Neovim session. vim.lsp.rpc speaks
-- LSP's Content-Length framing; the worker detects it and answers in kind.
local M = {}

local client = nil -- the vim.lsp.rpc client
local running = {} -- request id -> method
local status = ''

local IMAGE = { jpg = true, jpeg = true, png = true, webp = true, gif = true, heic = true, heif = true, avif = true }
-- Clips (a Live Photo's .mov among them): their sticker is an animated one.
local CLIP = { mp4 = true, m4v = true, mov = true, webm = true, mkv = true }

local function message(text, level)
  vim.notify('photoworker: ' .. text, level or vim.log.levels.INFO)
end

local function set_status(text)
  status = text
  vim.cmd('redrawstatus')
  if text ~= '' then
    vim.api.nvim_echo({ { 'photoworker: ' .. text } }, false, {})
  end
end

--- What to put in 'statusline' (`%{v:lua.require'photoworker'.status()}`): the running job's progress.
function M.status()
  return status
end

local function executable()
  local bin = vim.env.PHOTOWORKER_BIN
  if bin and bin ~= '' then
    return bin
  end
  return vim.fn.exepath('photoworker')
end

local dispatchers = {
  notification = function(method, params)
    if method == '$/progress' and params.kind == 'progress' and params.total then
      set_status(string.format('%s %d/%d', running[params.id] or 'job', params.done, params.total))
    end
  end,
  on_exit = function()
    vim.schedule(function()
      client = nil
      running = {}
      set_status('')
    end)
  end,
}

--- The RPC client, starting the worker on first use; nil (with a message) when it cannot start.
function M.client()
  if client then
    return client
  end
  local bin = executable()
  if bin == '' or vim.fn.executable(bin) ~= 1 then
    message('photoworker not found: set $PHOTOWORKER_BIN or put photoworker on PATH', vim.log.levels.ERROR)
    return nil
  end
  if vim.fn.has('nvim-0.10') == 1 then
    client = vim.lsp.rpc.start({ bin }, dispatchers)
  else
    client = vim.lsp.rpc.start(bin, {}, dispatchers)
  end
  return client
end

--- The worker's process id (nil when none runs or this Neovim does not say).
function M.pid()
  return client and client.pid
end

local function error_text(err)
  local data = type(err.data) == 'table' and (err.data.reason or err.data.detail) or nil
  return string.format('%s (%d)%s', err.message, err.code, data and (': ' .. data) or '')
end

--- Sends a request; `done(err, result)` gets the error table or the result. Returns the request id.
--- Neovim's client drops the worker's -32800 replies to cancelled requests, so `cancel()` answers those itself.
function M.request(method, params, done)
  local c = M.client()
  if not c then
    return nil
  end
  local id
  local ok
  ok, id = c.request(method, params, function(err, result)
    running[id] = nil
    if next(running) == nil then
      set_status('')
    end
    done(err, result)
  end)
  if not ok then
    message('the worker is not running', vim.log.levels.ERROR)
    return nil
  end
  running[id] = method
  return id
end

--- The image to work on: the file name under the cursor if it is an image, else the buffer's file.
function M.target()
  for _, candidate in ipairs({ vim.fn.expand('<cfile>'), vim.fn.expand('%:p') }) do
    if candidate ~= '' then
      local path = vim.fn.fnamemodify(candidate, ':p')
      if vim.fn.filereadable(path) == 0 and vim.fn.expand('%:p:h') ~= '' then
        path = vim.fn.expand('%:p:h') .. '/' .. candidate
      end
      local ext = vim.fn.fnamemodify(path, ':e'):lower()
      if vim.fn.filereadable(path) == 1 and (IMAGE[ext] or CLIP[ext]) then
        return vim.fn.fnamemodify(path, ':p')
      end
    end
  end
  return nil
end

local function target_or_complain()
  local path = M.target()
  if not path then
    message('no image (.jpg, .png, .webp, .gif, .heic, .avif) or clip (.mp4, .mov, .webm) under the cursor or in this buffer',
      vim.log.levels.WARN)
  end
  return path
end

local function report(ok_text)
  return function(err, result)
    if err then
      message(error_text(err), vim.log.levels.ERROR)
    else
      message(ok_text(result))
    end
  end
end

function M.thumbnail(size)
  local src = target_or_complain()
  if not src then return end
  local out = vim.fn.fnamemodify(src, ':r') .. '-thumb.jpg'
  M.request('image.thumbnail', { source = { path = src }, size = tonumber(size) or 256, output = { path = out } },
    report(function(r) return string.format('thumbnail %dx%d -> %s', r.output.width, r.output.height, out) end))
end

--- Inserts the palette's hex codes at the cursor of the window that asked.
function M.palette(count)
  local src = target_or_complain()
  if not src then return end
  local buf = vim.api.nvim_get_current_buf()
  local row, col = unpack(vim.api.nvim_win_get_cursor(0))
  M.request('image.palette', { source = { path = src }, count = tonumber(count) or 5 }, function(err, result)
    if err then
      return message(error_text(err), vim.log.levels.ERROR)
    end
    local hexes = {}
    for _, c in ipairs(result.colors) do table.insert(hexes, c.hex) end
    local text = table.concat(hexes, ' ')
    local line = vim.api.nvim_buf_get_lines(buf, row - 1, row, false)[1] or ''
    vim.api.nvim_buf_set_lines(buf, row - 1, row, false, { line:sub(1, col + 1) .. text .. line:sub(col + 2) })
    message('palette ' .. text)
  end)
end

local function box_text(b)
  return string.format('%d,%d %dx%d', b.x, b.y, b.width, b.height)
end

--- Cuts the subject out as NAME-sticker.png; of a clip, in every frame, as NAME-sticker.webp (animated WebP). `args`
--- "X Y" (a pixel of the photo as displayed, after its EXIF orientation, or of the clip's first frame;
--- `:PhotoworkerSubjects` lists one per subject of a photo) cuts the subject under that point instead.
function M.sticker(args)
  local src = target_or_complain()
  if not src then return end
  local clip = CLIP[vim.fn.fnamemodify(src, ':e'):lower()]
  local params = { source = { path = src },
    output = { path = vim.fn.fnamemodify(src, ':r') .. (clip and '-sticker.webp' or '-sticker.png') } }
  if args and args:match('%S') then
    local x, y = args:match('^%s*(%d+)%s+(%d+)%s*$')
    if not x then
      return message('a point is two numbers, X Y: a pixel of the photo', vim.log.levels.WARN)
    end
    params.subject = { point = { tonumber(x), tonumber(y) } }
  end
  local what = params.subject and string.format('sticker of the subject at %d %d', params.subject.point[1],
    params.subject.point[2]) or 'sticker'
  if clip then
    M.request('image.animatedSticker', params, report(function(r)
      return string.format('animated %s: %d frames -> %s', what, r.frames, params.output.path)
    end))
    return
  end
  M.request('image.sticker', params,
    report(function(r) return string.format('%s: box %s -> %s', what, box_text(r.boundingBox), params.output.path) end))
end

--- Lists the photo's separate subjects, largest first, each with the point that selects it.
function M.subjects()
  local src = target_or_complain()
  if not src then return end
  M.request('image.subjects', { source = { path = src } }, function(err, result)
    if err then
      return message(error_text(err), vim.log.levels.ERROR)
    end
    if #result.subjects == 0 then
      return message('no subject found')
    end
    for i, s in ipairs(result.subjects) do
      message(string.format('subject %d: box %s, point %d %d (:PhotoworkerSticker %d %d)', i, box_text(s.box),
        s.point[1], s.point[2], s.point[1], s.point[2]))
    end
  end)
end

--- Stickers, gradients and palettes for every image of a folder, with progress in the status line.
function M.process(folder)
  local dir = folder ~= '' and folder or vim.fn.expand('%:p:h')
  if dir == '' then dir = vim.fn.getcwd() end
  dir = vim.fn.fnamemodify(dir, ':p'):gsub('/$', '')
  local sources = {}
  for _, f in ipairs(vim.fn.glob(dir .. '/*', false, true)) do
    if IMAGE[vim.fn.fnamemodify(f, ':e'):lower()] then table.insert(sources, { path = f }) end
  end
  if #sources == 0 then
    return message('no images in ' .. dir, vim.log.levels.WARN)
  end
  local out = dir .. '/photoworker-out'
  set_status(string.format('photos.process 0/%d', #sources))
  M.request('photos.process', { sources = sources, output = { dir = out } },
    report(function(r) return string.format('%d done, %d failed -> %s', r.completed, r.failed, out) end))
end

--- Cancels every request in flight.
function M.cancel()
  if not client or next(running) == nil then
    return message('nothing is running')
  end
  local names = {}
  for id, method in pairs(running) do
    client.notify('$/cancelRequest', { id = id })
    table.insert(names, method)
  end
  running = {}
  set_status('')
  message('cancelled ' .. table.concat(names, ', '))
end

--- Cancels what runs and ends the worker (also on VimLeavePre).
function M.stop()
  local c = client
  if not c then return end
  for id in pairs(running) do c.notify('$/cancelRequest', { id = id }) end
  c.notify('exit', nil)
  -- The worker exits at once on `exit`; a stuck one is terminated.
  local pid = c.pid
  vim.wait(1000, function() return client == nil end, 10)
  if client ~= nil then
    if c.terminate then c.terminate() elseif c.handle then c.handle:kill(15) end
  end
  client = nil
  running = {}
  return pid
end

return M
