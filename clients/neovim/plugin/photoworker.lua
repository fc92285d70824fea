-- PhotoWorker for Neovim (0.7.2 and 0.10+): thumbnails, palettes, stickers and folders through one photoworker
-- process per Neovim session, driven with Neovim's own JSON-RPC client (vim.lsp.rpc). See clients/neovim/README.md.
if vim.g.loaded_photoworker then
  return
end
vim.g.loaded_photoworker = true

local function command(name, fn, opts)
  vim.api.nvim_create_user_command(name, function(args) require('photoworker')[fn](args.args) end, opts or {})
end
command('PhotoworkerThumbnail', 'thumbnail', { nargs = '?' })
command('PhotoworkerPalette', 'palette', { nargs = '?' })
command('PhotoworkerSticker', 'sticker', { nargs = '*' })
command('PhotoworkerSubjects', 'subjects', { nargs = 0 })
command('PhotoworkerProcess', 'process', { nargs = '?', complete = 'dir' })
command('PhotoworkerCancel', 'cancel', { nargs = 0 })
command('PhotoworkerStop', 'stop', { nargs = 0 })

-- Cancel what runs and end the worker with the editor: no process outlives Neovim.
vim.api.nvim_create_autocmd('VimLeavePre', {
  group = vim.api.nvim_create_augroup('photoworker', { clear = true }),
  callback = function() require('photoworker').stop() end,
})
