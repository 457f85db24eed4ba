import { render } from 'preact';
import { App } from './app.js';
import './styles/base.css';
import './styles/forms.css';
import './styles/history.css';
import './styles/timeline.css';

const root = document.getElementById('app');
if (root !== null) {
  root.textContent = '';
  render(<App />, root);
}
